# Install rules: `cmake --install build --prefix P` (or ./configure --prefix=P && make install)
# writes exactly this, and nothing outside P:
#   P/bin/      mpicc, mpicxx, mpic++, mpifort, mpif90, mpif77 (where made) and, with the
#               launcher, gpurun, mpirun, mpiexec
#   P/lib/      libmpi.so.12.0.0, libmpi.so.12, libmpi.so, libmpich.so.12
#   P/include/  the public headers (*.h, *.cuh, with their subdirectories)
#   P/lib/pkgconfig/    gpurun.pc, mpi.pc, mpi-c.pc, mpi-cxx.pc, mpich.pc
#   P/lib/cmake/gpurun/ gpurunConfig.cmake, gpurunConfigVersion.cmake
# The tree is relocatable: the wrappers, .pc files and CMake package compute P from their own
# location (tools/), and the binaries find libmpi through $ORIGIN. The directory names are
# fixed (bin, lib, include) because the wrappers and package files rely on them.
# Most files are installed from the build tree, which mirrors this layout (tools/CMakeLists.txt).

set(_gpurun_build ${PROJECT_BINARY_DIR})

# Keeps, after install, the rpath entries the link put in for third-party libraries outside
# the default search path (libpmix on Debian) beside the target's own $ORIGIN ones; without
# it CMake would replace them with INSTALL_RPATH alone.
function(gpurun_install_rpath target)
  set_property(TARGET ${target} PROPERTY INSTALL_RPATH_USE_LINK_PATH ON)
endfunction()

# --- library --------------------------------------------------------------------------------
gpurun_install_rpath(mpi)
install(TARGETS mpi LIBRARY DESTINATION lib)
install(FILES ${_gpurun_build}/lib/libmpich.so.12 DESTINATION lib)  # a symbolic link

# --- headers --------------------------------------------------------------------------------
install(DIRECTORY ${_gpurun_build}/include/ DESTINATION include
  FILES_MATCHING PATTERN "*.h" PATTERN "*.cuh")

# --- programs -------------------------------------------------------------------------------
install(PROGRAMS ${_gpurun_build}/bin/mpicc ${_gpurun_build}/bin/mpicxx DESTINATION bin)
install(FILES ${_gpurun_build}/bin/mpic++ DESTINATION bin)  # a symbolic link
if(GPURUN_HAVE_MPIFORT)
  install(PROGRAMS ${_gpurun_build}/bin/mpifort DESTINATION bin)
  install(FILES ${_gpurun_build}/bin/mpif90 ${_gpurun_build}/bin/mpif77 DESTINATION bin)  # links
endif()
if(TARGET gpurun)
  gpurun_install_rpath(gpurun)
  get_target_property(_launcher_rpath gpurun INSTALL_RPATH)
  if(NOT _launcher_rpath)
    set_property(TARGET gpurun PROPERTY INSTALL_RPATH "$ORIGIN/../lib")
  endif()
  install(TARGETS gpurun RUNTIME DESTINATION bin)
  install(FILES ${_gpurun_build}/bin/mpirun ${_gpurun_build}/bin/mpiexec DESTINATION bin)
endif()

# --- package files --------------------------------------------------------------------------
install(DIRECTORY ${_gpurun_build}/lib/pkgconfig/ DESTINATION lib/pkgconfig
  FILES_MATCHING PATTERN "*.pc")
install(FILES ${_gpurun_build}/lib/cmake/gpurun/gpurunConfig.cmake
              ${_gpurun_build}/lib/cmake/gpurun/gpurunConfigVersion.cmake
        DESTINATION lib/cmake/gpurun)
