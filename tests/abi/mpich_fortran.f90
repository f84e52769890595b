! A Fortran program built by Debian's mpifort.mpich (the mpi module, MPICH's Fortran bindings in
! libmpichfort.so.12) runs on gpurun's library: predefined attributes as Fortran integers
! (MPI_TAG_UB by MPI_COMM_GET_ATTR and MPI_ATTR_GET, a window's base, size and displacement
! unit), keyvals whose copy and delete functions are Fortran procedures (called on MPI_COMM_DUP,
! MPI_COMM_FREE, MPI_COMM_DELETE_ATTR and MPI_TYPE_DUP, with the value and extra state Fortran
! gave), a generalized request whose query, free and cancel functions are Fortran ones, a
! Fortran reduction (not commutative) with MPI_IN_PLACE, and a Fortran error handler.
! Each rank prints "right" or "wrong" with its count of errors.
module checks
  use mpi
  implicit none
  integer :: errors = 0, deletes = 0, frees = 0, cancels = 0, handled = 0
contains
  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (.not. ok) then
      errors = errors + 1
      print *, 'check failed: ', what
    end if
  end subroutine

  ! Copies the value plus one, so that the duplicate's value shows the function ran.
  subroutine copy_plus_one(oldcomm, keyval, extra, value_in, value_out, flag, ierr)
    integer :: oldcomm, keyval, ierr
    integer(kind=MPI_ADDRESS_KIND) :: extra, value_in, value_out
    logical :: flag
    value_out = value_in + 1
    flag = .true.
    ierr = MPI_SUCCESS
  end subroutine

  ! Counts its calls; checks that it gets the extra state the keyval was made with.
  subroutine count_delete(comm, keyval, value, extra, ierr)
    integer :: comm, keyval, ierr
    integer(kind=MPI_ADDRESS_KIND) :: value, extra
    call check(extra == 7, 'extra state in the delete function')
    call check(value >= 42, 'value in the delete function')
    deletes = deletes + 1
    ierr = MPI_SUCCESS
  end subroutine

  subroutine query(extra, status, ierr)
    integer(kind=MPI_ADDRESS_KIND) :: extra
    integer :: status(MPI_STATUS_SIZE), ierr
    call MPI_Status_set_elements(status, MPI_INTEGER, 3, ierr)
    call MPI_Status_set_cancelled(status, .false., ierr)
    status(MPI_SOURCE) = int(extra)
    status(MPI_TAG) = 11
    ierr = MPI_SUCCESS
  end subroutine

  subroutine free_fn(extra, ierr)
    integer(kind=MPI_ADDRESS_KIND) :: extra
    integer :: ierr
    frees = frees + 1
    ierr = MPI_SUCCESS
  end subroutine

  ! Keeps the left operand: associative, not commutative, so the result is rank 0's value.
  subroutine keep_first(invec, inoutvec, len, datatype)
    integer :: len, datatype, i
    integer :: invec(len), inoutvec(len)
    do i = 1, len
      inoutvec(i) = invec(i)
    end do
  end subroutine

  subroutine handler(comm, code)
    integer :: comm, code
    handled = code
  end subroutine

  subroutine cancel_fn(extra, complete, ierr)
    integer(kind=MPI_ADDRESS_KIND) :: extra
    logical :: complete
    integer :: ierr
    call check(.not. complete, 'complete in the cancel function')
    cancels = cancels + 1
    ierr = MPI_SUCCESS
  end subroutine
end module

program mpich_fortran
  use mpi
  use checks
  implicit none
  integer :: ierr, rank, size, keyval, tkeyval, dup, tdup, win, unit, tagub4, count
  integer(kind=MPI_ADDRESS_KIND) :: value, extra, wsize, base, tagub
  integer :: req, status(MPI_STATUS_SIZE), buf(4), op, handler_id
  logical :: flag

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)

  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, tagub, flag, ierr)
  call check(flag .and. tagub >= 32767, 'MPI_TAG_UB by MPI_COMM_GET_ATTR')
  call MPI_Attr_get(MPI_COMM_WORLD, MPI_TAG_UB, tagub4, flag, ierr)
  call check(flag .and. tagub4 == tagub, 'MPI_TAG_UB by MPI_ATTR_GET')

  extra = 7
  call MPI_Comm_create_keyval(copy_plus_one, count_delete, keyval, extra, ierr)
  call MPI_Comm_set_attr(MPI_COMM_WORLD, keyval, 42_MPI_ADDRESS_KIND, ierr)
  call MPI_Comm_get_attr(MPI_COMM_WORLD, keyval, value, flag, ierr)
  call check(flag .and. value == 42, 'a value Fortran set')
  call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
  call MPI_Comm_get_attr(dup, keyval, value, flag, ierr)
  call check(flag .and. value == 43, 'the value the Fortran copy function made')
  call MPI_Comm_free(dup, ierr)
  call check(deletes == 1, 'delete function on MPI_COMM_FREE')
  call MPI_Comm_delete_attr(MPI_COMM_WORLD, keyval, ierr)
  call check(deletes == 2, 'delete function on MPI_COMM_DELETE_ATTR')
  call MPI_Comm_get_attr(MPI_COMM_WORLD, keyval, value, flag, ierr)
  call check(.not. flag, 'deleted attribute')
  call MPI_Comm_free_keyval(keyval, ierr)

  call MPI_Type_create_keyval(MPI_TYPE_DUP_FN, MPI_TYPE_NULL_DELETE_FN, tkeyval, extra, ierr)
  call MPI_Type_contiguous(2, MPI_INTEGER, tdup, ierr)
  call MPI_Type_set_attr(tdup, tkeyval, 5_MPI_ADDRESS_KIND, ierr)
  call MPI_Type_dup(tdup, count, ierr)
  call MPI_Type_get_attr(count, tkeyval, value, flag, ierr)
  call check(flag .and. value == 5, 'a datatype attribute copied by MPI_TYPE_DUP_FN')
  call MPI_Type_free(count, ierr)
  call MPI_Type_free(tdup, ierr)
  call MPI_Type_free_keyval(tkeyval, ierr)

  call MPI_Win_create(buf, int(16, MPI_ADDRESS_KIND), 4, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
  call MPI_Win_get_attr(win, MPI_WIN_SIZE, wsize, flag, ierr)
  call check(flag .and. wsize == 16, 'MPI_WIN_SIZE')
  call MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, value, flag, ierr)
  call check(flag .and. value == 4, 'MPI_WIN_DISP_UNIT')
  call MPI_Win_get_attr(win, MPI_WIN_BASE, base, flag, ierr)
  call MPI_Get_address(buf, value, ierr)
  call check(flag .and. base == value, 'MPI_WIN_BASE')
  call MPI_Win_free(win, ierr)

  extra = 3
  call MPI_Grequest_start(query, free_fn, cancel_fn, extra, req, ierr)
  call MPI_Grequest_complete(req, ierr)
  call MPI_Wait(req, status, ierr)
  call MPI_Get_count(status, MPI_INTEGER, count, ierr)
  call check(status(MPI_SOURCE) == 3 .and. status(MPI_TAG) == 11 .and. count == 3, &
             'the status of the Fortran query function')
  call check(frees == 1, 'the Fortran free function')
  call MPI_Grequest_start(query, free_fn, cancel_fn, extra, req, ierr)
  call MPI_Cancel(req, ierr)
  call check(cancels == 1, 'the Fortran cancel function')
  call MPI_Grequest_complete(req, ierr)
  call MPI_Wait(req, status, ierr)
  call check(frees == 2, 'the Fortran free function, second request')

  call MPI_Op_create(keep_first, .false., op, ierr)
  buf = rank + 10
  call MPI_Allreduce(MPI_IN_PLACE, buf, 4, MPI_INTEGER, op, MPI_COMM_WORLD, ierr)
  call check(all(buf == 10), 'a Fortran reduction in rank order')
  call MPI_Op_free(op, ierr)
  call MPI_Comm_create_errhandler(handler, handler_id, ierr)
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, handler_id, ierr)
  call MPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_OTHER, ierr)
  call check(handled == MPI_ERR_OTHER, 'the Fortran error handler')
  call MPI_Errhandler_free(handler_id, ierr)

  if (errors == 0) then
    print '(a,i0,a,i0,a)', 'rank ', rank, ' of ', size, ': right'
  else
    print '(a,i0,a,i0,a,i0,a)', 'rank ', rank, ' of ', size, ': wrong, ', errors, ' errors'
  end if
  call MPI_Finalize(ierr)
end program
