// Force-included into every translation unit of an image (-include): Verilator's runtime prints
// through VL_PRINTF, which the image routes to stderr and to the model's failure message, so
// that nothing an image prints can corrupt a board's stdout protocol stream.
#ifndef CTTE_VL_PRINTF_H_
#define CTTE_VL_PRINTF_H_

void ctte_vl_printf(const char* format, ...) __attribute__((format(printf, 1, 2)));

#endif  // CTTE_VL_PRINTF_H_
