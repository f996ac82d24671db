// ompcollect-cxx.cc - a C++ program whose parallel constructs sit in an inlined member function template and in a lambda, for t/ompcollect-cxx.sh: the report must name them as written, demangled.
// SPDX-License-Identifier: BSD-3-Clause
#include <omp.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

namespace physics {

template <typename T> struct Field {
    std::vector<T> values;
    explicit Field(std::size_t n) : values(n, T(1)) {}

    // Always inlined into main: the construct's address lies in main's code.
    __attribute__((always_inline)) inline T relax(int sweeps)
    {
        T sum = 0;
        for (int s = 0; s < sweeps; s++) {
#pragma omp parallel for reduction(+ : sum) // @cxx-relax the construct
            for (long i = 0; i < static_cast<long>(values.size()); i++) {
                values[i] = values[i] * T(0.5) + T(0.25);
                sum += values[i];
            }
        }
        return sum;
    }
};

// One more inlined level: relax's construct lies in step, inlined into main.
__attribute__((always_inline)) inline double step(Field<double> &field)
{
    return field.relax(4); // @cxx-step relax inlined here
}

} // namespace physics

int main(int argc, char **argv)
{
    double seconds = argc > 1 ? std::atof(argv[1]) : 0.3;
    physics::Field<double> field(1 << 16);
    double total = 0;
    auto scale = [&](double factor) __attribute__((always_inline)) {
#pragma omp parallel for reduction(+ : total) // @cxx-lambda the construct
        for (long i = 0; i < static_cast<long>(field.values.size()); i++)
            total += field.values[i] * factor;
    };
    double start = omp_get_wtime();
    do {
        total += physics::step(field); // @cxx-main-step step inlined here
        scale(1.0 / 3);
    } while (omp_get_wtime() - start < seconds);
    std::printf("%g\n", total);
    return 0;
}
