! fortran_kernel.f90 - a Fortran module procedure with an imbalanced OpenMP parallel do and a named critical, and an external procedure with a reduction: ompcollect names them kern::work and count_up (gfortran's symbol count_up_), and the program fortran_kernel, as gdb does.
! SPDX-License-Identifier: BSD-3-Clause
module kern
  use omp_lib
  implicit none
contains
  ! Busy rather than sleeping, so the work looks like computation to the runtime.
  subroutine spin(seconds)
    double precision, intent(in) :: seconds
    double precision :: finish
    finish = omp_get_wtime() + seconds
    do while (omp_get_wtime() < finish)
    end do
  end subroutine spin

  ! One region of two threads: iteration i works i ms, and a static schedule hands the
  ! last iterations, the longest, to the last thread: the others wait for
  ! it in the closing barrier.  Each iteration counts itself in a critical.
  subroutine work(n, total)
    integer, intent(in) :: n
    integer, intent(inout) :: total
    integer :: i
    !$omp parallel do schedule(static) num_threads(2)
    do i = 1, n
      call spin(i * 1.0d-3)
      !$omp critical (tally)
      total = total + 1
      !$omp end critical (tally)
    end do
    !$omp end parallel do
  end subroutine work
end module kern

! An external procedure: gfortran's symbol for it is count_up_, its name count_up.
subroutine count_up(n, total)
  implicit none
  integer, intent(in) :: n
  integer, intent(inout) :: total
  integer :: i
  !$omp parallel do reduction(+:total) num_threads(2)
  do i = 1, n
    total = total + 1
  end do
  !$omp end parallel do
end subroutine count_up

! Regions back to back for the requested time (argument 1, seconds, default 1).
program fortran_kernel
  use kern
  implicit none
  character(len=32) :: argument
  double precision :: seconds, finish
  integer :: regions, total
  seconds = 1
  if (command_argument_count() > 0) then
    call get_command_argument(1, argument)
    read (argument, *) seconds
  end if
  regions = 0
  total = 0
  finish = omp_get_wtime() + seconds
  do while (omp_get_wtime() < finish)
    call work(8, total)
    call count_up(1000, total)
    regions = regions + 1
  end do
  print '(a, i0, a, i0, a)', 'fortran_kernel: ', regions, ' regions, ', total, ' iterations'
end program fortran_kernel
