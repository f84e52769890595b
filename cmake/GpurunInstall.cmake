# install rules: see cmake/GpurunInstall.cmake
