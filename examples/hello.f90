! hello in Fortran (bin/mpifort): each rank says who and where it is, then all meet in a barrier.
program hello
  use mpi
  implicit none
  integer :: ierr, rank, size, len
  character(len=MPI_MAX_PROCESSOR_NAME) :: host
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  call MPI_Get_processor_name(host, len, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  print '(a,i0,a,i0,a,a)', 'rank ', rank, ' of ', size, ' on ', host(1:len)
  call MPI_Finalize(ierr)
end program
