! ompcollect-gccsites.f90 - NPB MG's comm3 shape for t/ompcollect-gccsites.sh: two !$omp do loops in one region, the first's closing barrier named by gfortran's line table at its body's last line; the first iteration works a time slice, so the other thread waits there.
! SPDX-License-Identifier: BSD-3-Clause
program gccsites
  implicit none
  integer, parameter :: n = 64
  double precision :: u(n, n, 2), seconds
  character(len=32) :: arg
  integer :: round
  seconds = 0.3d0
  if (command_argument_count() > 0) then
    call get_command_argument(1, arg)
    read (arg, *) seconds
  end if
  u = 1.0d0
  do round = 1, 4
    call comm(u, n, 2, seconds / 4)
  end do
  print '(a, f14.1)', 'gccsites: ', sum(u)
end program gccsites

! Works for `seconds`.
subroutine spin(seconds)
  use omp_lib
  implicit none
  double precision, intent(in) :: seconds
  double precision :: finish
  finish = omp_get_wtime() + seconds
  do while (omp_get_wtime() < finish)
  end do
end subroutine spin

! The loop's bound is an argument, as comm3's: GCC computes the schedule from it on the directive's line.
subroutine comm(u, n, m, slice)
  implicit none
  integer, intent(in) :: n, m
  double precision, intent(inout) :: u(n, n, 2)
  double precision, intent(in) :: slice
  integer :: i1, i2, i3
!$omp parallel default(shared) private(i1, i2, i3) num_threads(2)
!$omp do
  do i3 = 1, m
    if (i3 == 1) call spin(slice)
    do i2 = 2, n - 1
      u(1, i2, i3) = u(n - 1, i2, i3)
      u(n, i2, i3) = u(2, i2, i3)
    end do
    do i1 = 1, n
      u(i1, 1, i3) = u(i1, n - 1, i3)
      u(i1, n, i3) = u(i1, 2, i3)
    end do
  end do
!$omp do
  do i2 = 1, n
    u(i2, 1, 1) = u(i2, 1, 2)
  end do
!$omp end parallel
end subroutine comm
