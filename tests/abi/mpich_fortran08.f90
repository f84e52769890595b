! A Fortran 2008 program built by Debian's mpifort.mpich (the mpi_f08 module) runs on gpurun's
! library: point-to-point with a status, a reduction, MPI_TAG_UB as an integer, and a keyval
! whose copy function (MPI_COMM_DUP_FN) copies a value Fortran set.
program mpich_fortran08
  use mpi_f08
  implicit none
  integer :: rank, size, val, total, keyval, errors = 0
  integer(kind=MPI_ADDRESS_KIND) :: tagub, value, extra = 0
  logical :: flag
  type(MPI_Status) :: st
  type(MPI_Comm) :: dup

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, size)
  val = rank + 1
  call MPI_Allreduce(val, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (total /= size * (size + 1) / 2) errors = errors + 1
  if (rank == 0) call MPI_Send(val, 1, MPI_INTEGER, size - 1, 5, MPI_COMM_WORLD)
  if (rank == size - 1) then
    call MPI_Recv(val, 1, MPI_INTEGER, 0, 5, MPI_COMM_WORLD, st)
    if (val /= 1 .or. st%MPI_SOURCE /= 0 .or. st%MPI_TAG /= 5) errors = errors + 1
  end if
  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, tagub, flag)
  if (.not. flag .or. tagub < 32767) errors = errors + 1
  call MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, keyval, extra)
  call MPI_Comm_set_attr(MPI_COMM_WORLD, keyval, 99_MPI_ADDRESS_KIND)
  call MPI_Comm_dup(MPI_COMM_WORLD, dup)
  call MPI_Comm_get_attr(dup, keyval, value, flag)
  if (.not. flag .or. value /= 99) errors = errors + 1
  call MPI_Comm_free(dup)
  call MPI_Comm_free_keyval(keyval)
  if (errors == 0) then
    print '(a,i0,a,i0,a)', 'f08 rank ', rank, ' of ', size, ': right'
  else
    print '(a,i0,a,i0,a,i0,a)', 'f08 rank ', rank, ' of ', size, ': wrong, ', errors, ' errors'
  end if
  call MPI_Finalize()
end program
