/* Compile-time proof that the public enums made from tables keep their ABI
 * shape: each row's value column (its constant's number, fixed for good: see
 * docs/design.md §15) is in 0..COUNT-1, where COUNT is the number of rows,
 * and no two rows share a value. Together: the values are exactly
 * 0..COUNT-1 in some row order, so the arrays the library indexes by value
 * (sized [COUNT], initialised by designated index [value]) have a row in
 * every slot, whatever order the rows are written in. A duplicate value is
 * a duplicate case label below (an error, not a warning); a value past the
 * end, or a gap left by a removed row, fails a _Static_assert. */
#include "tcmma/tcmma.h"

/* Each row: 0 <= value < COUNT, named in the message. */
#define TCMMA__ABI_RANGE(table, count, ID, value) \
  _Static_assert((value) >= 0 && (value) < (count), \
                 "tables/" table ": row " #ID "'s value is outside 0.." #count "-1");

/* Each row a case label: two rows of one value do not compile. */
#define TCMMA__ABI_CASE(value) case (value): break;

#define TCMMA_ARM(ID, value, ...) TCMMA__ABI_RANGE("arms.def", TCMMA_ARM_COUNT, ID, value)
#include "tables/arms.def"
#undef TCMMA_ARM
#define TCMMA_PREC(ID, value, ...) TCMMA__ABI_RANGE("prec.def", TCMMA_PREC_COUNT, ID, value)
#include "tables/prec.def"
#undef TCMMA_PREC
#define TCMMA_STATUS(ID, value, ...) \
  TCMMA__ABI_RANGE("status.def", TCMMA_STATUS_COUNT, ID, value)
#include "tables/status.def"
#undef TCMMA_STATUS
#define TCMMA_MARKER(ID, value, ...) \
  TCMMA__ABI_RANGE("markers.def", TCMMA_MARKER_COUNT, ID, value)
#include "tables/markers.def"
#undef TCMMA_MARKER
#define TCMMA_DECLINE(ID, value, ...) \
  TCMMA__ABI_RANGE("declines.def", TCMMA_DECLINE_COUNT, ID, value)
#include "tables/declines.def"
#undef TCMMA_DECLINE
#define TCMMA_GEMM_DECLINE(ID, value, ...) \
  TCMMA__ABI_RANGE("gemm_declines.def", TCMMA_GEMM_DECLINE_COUNT, ID, value)
#include "tables/gemm_declines.def"
#undef TCMMA_GEMM_DECLINE
#define TCMMA_GEMM_KERNEL(ID, value, ...) \
  TCMMA__ABI_RANGE("gemm_kernels.def", TCMMA_GEMM_KERNEL_COUNT, ID, value)
#include "tables/gemm_kernels.def"
#undef TCMMA_GEMM_KERNEL
#define TCMMA_SWIZZLE(ID, value, ...) \
  TCMMA__ABI_RANGE("swizzles.def", TCMMA_SWIZZLE_COUNT, ID, value)
#include "tables/swizzles.def"
#undef TCMMA_SWIZZLE
#define TCMMA_PTX_FEATURE(ID, value, ...) \
  TCMMA__ABI_RANGE("ptx_features.def", TCMMA_PTX_FEATURE_COUNT, ID, value)
#include "tables/ptx_features.def"
#undef TCMMA_PTX_FEATURE
#define TCMMA_TMAP_INTERLEAVE(ID, value, ...) \
  TCMMA__ABI_RANGE("tensor_map.def", TCMMA_TMAP_INTERLEAVE_COUNT, ID, value)
#define TCMMA_TMAP_L2(ID, value, ...) TCMMA__ABI_RANGE("tensor_map.def", TCMMA_TMAP_L2_COUNT, ID, value)
#define TCMMA_TMAP_OOB(ID, value, ...) \
  TCMMA__ABI_RANGE("tensor_map.def", TCMMA_TMAP_OOB_COUNT, ID, value)
#define TCMMA_TMAP_RULE(ID, value, ...) \
  TCMMA__ABI_RANGE("tensor_map.def", TCMMA_TMAP_RULE_COUNT, ID, value)
#include "tables/tensor_map.def"
#define TCMMA_WGMMA(ID, value, ...) TCMMA__ABI_RANGE("wgmma.def", TCMMA_WGMMA_COUNT, ID, value)
#include "tables/wgmma.def"
#undef TCMMA_WGMMA
#define TCMMA_TCGEN05(ID, value, ...) TCMMA__ABI_RANGE("tcgen05.def", TCMMA_TCGEN05_COUNT, ID, value)
#include "tables/tcgen05.def"
#undef TCMMA_TCGEN05
#define TCMMA_TCGEN05_IDESC(ID, value, ...) \
  TCMMA__ABI_RANGE("tcgen05_desc.def", TCMMA_TCGEN05_IDESC_COUNT, ID, value)
#define TCMMA_TCGEN05_SDESC(ID, value, ...) \
  TCMMA__ABI_RANGE("tcgen05_desc.def", TCMMA_TCGEN05_SDESC_COUNT, ID, value)
#define TCMMA_TCGEN05_LDST(ID, value, ...) \
  TCMMA__ABI_RANGE("tcgen05_desc.def", TCMMA_TCGEN05_LDST_COUNT, ID, value)
#include "tables/tcgen05_desc.def"
#define TCMMA_EPILOGUE(ID, value, ...) \
  TCMMA__ABI_RANGE("epilogues.def", TCMMA_EPILOGUE_COUNT, ID, value)
#include "tables/epilogues.def"
#undef TCMMA_EPILOGUE
#define TCMMA_EPILOGUE_AXIS(ID, value, ...) \
  TCMMA__ABI_RANGE("epilogue_axes.def", TCMMA_EPILOGUE_AXIS_COUNT, ID, value)
#include "tables/epilogue_axes.def"
#undef TCMMA_EPILOGUE_AXIS
#define TCMMA_KERNEL_ATTR(ID, value, ...) \
  TCMMA__ABI_RANGE("kernel_attrs.def", TCMMA_KERNEL_ATTR_COUNT, ID, value)
#include "tables/kernel_attrs.def"
#undef TCMMA_KERNEL_ATTR

/* Never called: only compiled, for the duplicate-case check (unused, which
 * clang reports for a static inline function in a .c file): the tcgen05
 * tables (tables/tcgen05.def, tables/tcgen05_desc.def). */
__attribute__((unused)) static void tcmma__abi_values_unique_tcgen05(int v) {
  switch (v) {
#define TCMMA_TCGEN05(ID, value, ...) TCMMA__ABI_CASE(value)
#include "tables/tcgen05.def"
#undef TCMMA_TCGEN05
  }
  switch (v) {
#define TCMMA_TCGEN05_IDESC(ID, value, ...) TCMMA__ABI_CASE(value)
#include "tables/tcgen05_desc.def"
  }
  switch (v) {
#define TCMMA_TCGEN05_SDESC(ID, value, ...) TCMMA__ABI_CASE(value)
#include "tables/tcgen05_desc.def"
  }
  switch (v) {
#define TCMMA_TCGEN05_LDST(ID, value, ...) TCMMA__ABI_CASE(value)
#include "tables/tcgen05_desc.def"
  }
}

/* Never called: only compiled, for the duplicate-case check (unused, which
 * clang reports for a static inline function in a .c file). */
__attribute__((unused)) static void tcmma__abi_values_unique(int v) {
  switch (v) {
#define TCMMA_ARM(ID, value, ...) TCMMA__ABI_CASE(value)
#include "tables/arms.def"
#undef TCMMA_ARM
  }
  switch (v) {
#define TCMMA_WGMMA(ID, value, ...) TCMMA__ABI_CASE(value)
#include "tables/wgmma.def"
#undef TCMMA_WGMMA
  }
  switch (v) {
#define TCMMA_PREC(ID, value, ...) TCMMA__ABI_CASE(value)
#include "tables/prec.def"
#undef TCMMA_PREC
  }
  switch (v) {
#define TCMMA_STATUS(ID, value, ...) TCMMA__ABI_CASE(value)
#include "tables/status.def"
#undef TCMMA_STATUS
  }
  switch (v) {
#define TCMMA_MARKER(ID, value, ...) TCMMA__ABI_CASE(value)
#include "tables/markers.def"
#undef TCMMA_MARKER
  }
  switch (v) {
#define TCMMA_DECLINE(ID, value, ...) TCMMA__ABI_CASE(value)
#include "tables/declines.def"
#undef TCMMA_DECLINE
  }
  switch (v) {
#define TCMMA_GEMM_DECLINE(ID, value, ...) TCMMA__ABI_CASE(value)
#include "tables/gemm_declines.def"
#undef TCMMA_GEMM_DECLINE
  }
  switch (v) {
#define TCMMA_GEMM_KERNEL(ID, value, ...) TCMMA__ABI_CASE(value)
#include "tables/gemm_kernels.def"
#undef TCMMA_GEMM_KERNEL
  }
}

/* The rest of the tables (one function per half: each under the length
 * limit of tests/function-length.sh). */
__attribute__((unused)) static void tcmma__abi_values_unique_more(int v) {
  switch (v) {
#define TCMMA_SWIZZLE(ID, value, ...) TCMMA__ABI_CASE(value)
#include "tables/swizzles.def"
#undef TCMMA_SWIZZLE
  }
  switch (v) {
#define TCMMA_PTX_FEATURE(ID, value, ...) TCMMA__ABI_CASE(value)
#include "tables/ptx_features.def"
#undef TCMMA_PTX_FEATURE
  }
  switch (v) {
#define TCMMA_TMAP_INTERLEAVE(ID, value, ...) TCMMA__ABI_CASE(value)
#include "tables/tensor_map.def"
  }
  switch (v) {
#define TCMMA_TMAP_L2(ID, value, ...) TCMMA__ABI_CASE(value)
#include "tables/tensor_map.def"
  }
  switch (v) {
#define TCMMA_TMAP_OOB(ID, value, ...) TCMMA__ABI_CASE(value)
#include "tables/tensor_map.def"
  }
  switch (v) {
#define TCMMA_TMAP_RULE(ID, value, ...) TCMMA__ABI_CASE(value)
#include "tables/tensor_map.def"
  }
  switch (v) {
#define TCMMA_EPILOGUE(ID, value, ...) TCMMA__ABI_CASE(value)
#include "tables/epilogues.def"
#undef TCMMA_EPILOGUE
  }
  switch (v) {
#define TCMMA_KERNEL_ATTR(ID, value, ...) TCMMA__ABI_CASE(value)
#include "tables/kernel_attrs.def"
#undef TCMMA_KERNEL_ATTR
  }
  switch (v) {
#define TCMMA_EPILOGUE_AXIS(ID, value, ...) TCMMA__ABI_CASE(value)
#include "tables/epilogue_axes.def"
#undef TCMMA_EPILOGUE_AXIS
  }
}
