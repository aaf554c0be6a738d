/* tcmma_tensor_map_encode: a map that passes tcmma's check, encoded by the
 * driver's cuTensorMapEncodeTiled (looked up when first asked for, so a
 * driver before CUDA 12.0 still serves everything else). The option and
 * type values of tables/tensor_map.def are the driver's own: asserted here. */
#include <cuda.h>
#include <cudaTypedefs.h>
#include <stdint.h>
#include "tcmma/tensor_map.h"
#include "nvrtc/internal.h"

#define TCMMA_TMAP_INTERLEAVE(ID, value, ...) \
  _Static_assert((value) == (int)CU_TENSOR_MAP_INTERLEAVE_##ID##_VALUE, "interleave " #ID);
#define CU_TENSOR_MAP_INTERLEAVE_NONE_VALUE CU_TENSOR_MAP_INTERLEAVE_NONE
#define CU_TENSOR_MAP_INTERLEAVE_B16_VALUE CU_TENSOR_MAP_INTERLEAVE_16B
#define CU_TENSOR_MAP_INTERLEAVE_B32_VALUE CU_TENSOR_MAP_INTERLEAVE_32B
#define TCMMA_TMAP_L2(ID, value, ...) \
  _Static_assert((value) == (int)CU_TENSOR_MAP_L2_##ID##_VALUE, "L2 promotion " #ID);
#define CU_TENSOR_MAP_L2_NONE_VALUE CU_TENSOR_MAP_L2_PROMOTION_NONE
#define CU_TENSOR_MAP_L2_B64_VALUE CU_TENSOR_MAP_L2_PROMOTION_L2_64B
#define CU_TENSOR_MAP_L2_B128_VALUE CU_TENSOR_MAP_L2_PROMOTION_L2_128B
#define CU_TENSOR_MAP_L2_B256_VALUE CU_TENSOR_MAP_L2_PROMOTION_L2_256B
#define TCMMA_TMAP_OOB(ID, value, ...) \
  _Static_assert((value) == (int)CU_TENSOR_MAP_OOB_##ID##_VALUE, "OOB fill " #ID);
#define CU_TENSOR_MAP_OOB_ZERO_VALUE CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE
#define CU_TENSOR_MAP_OOB_NAN_VALUE CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA
#define TCMMA_TMAP_DTYPE(PREC, cu_value, cu_name, floating) \
  _Static_assert((cu_value) == (int)CU_TENSOR_MAP_DATA_TYPE_##cu_name, "data type of " #PREC);
#include "tables/tensor_map.def"
/* tcmma's swizzle values are the driver's for none, 32, 64, 128 */
_Static_assert(TCMMA_SWIZZLE_NONE == (int)CU_TENSOR_MAP_SWIZZLE_NONE &&
               TCMMA_SWIZZLE_B32 == (int)CU_TENSOR_MAP_SWIZZLE_32B &&
               TCMMA_SWIZZLE_B64 == (int)CU_TENSOR_MAP_SWIZZLE_64B &&
               TCMMA_SWIZZLE_B128 == (int)CU_TENSOR_MAP_SWIZZLE_128B, "swizzle values");
_Static_assert(sizeof(CUtensorMap) == TCMMA_CU_TENSOR_MAP_BYTES &&
               _Alignof(CUtensorMap) % TCMMA_CU_TENSOR_MAP_ALIGN == 0, "CUtensorMap's shape");

static const int data_types[TCMMA_PREC_COUNT] = {
#define TCMMA_TMAP_DTYPE(PREC, cu_value, cu_name, floating) [TCMMA_PREC_##PREC] = cu_value,
#include "tables/tensor_map.def"
};

tcmma_status tcmma_tensor_map_encode(const tcmma_tensor_map *map, void *out, tcmma_error *err) {
  tcmma_status s = tcmma_tensor_map_check(map, NULL, err);
  if (s != TCMMA_OK) return s;
  if (!out || (uintptr_t)out % TCMMA_CU_TENSOR_MAP_ALIGN)
    return tcmma_fail(err, TCMMA_INVALID, "tensor map rule %s: out %p is not %d-byte aligned (%s)",
                      tcmma_tensor_map_rule_name(TCMMA_TMAP_RULE_MAP_ALIGN), out,
                      TCMMA_CU_TENSOR_MAP_ALIGN,
                      tcmma_tensor_map_rule_text(TCMMA_TMAP_RULE_MAP_ALIGN));
  PFN_cuTensorMapEncodeTiled_v12000 encode;
  *(void **)&encode = tcmma__nvrtc_driver_symbol("cuTensorMapEncodeTiled", err);
  if (!encode) return err ? err->status : TCMMA_UNAVAILABLE;
  cuuint64_t dims[TCMMA_TMAP_RANK_MAX], strides[TCMMA_TMAP_RANK_MAX];
  cuuint32_t box[TCMMA_TMAP_RANK_MAX], estrides[TCMMA_TMAP_RANK_MAX];
  for (int i = 0; i < map->rank; i++) {
    dims[i] = map->dims[i], box[i] = map->box[i], estrides[i] = map->element_strides[i];
    strides[i] = i + 1 < map->rank ? map->strides[i] : 0;
  }
  CUresult r = encode((CUtensorMap *)out, (CUtensorMapDataType)data_types[map->prec],
                      (cuuint32_t)map->rank, (void *)(uintptr_t)map->address, dims, strides, box,
                      estrides, (CUtensorMapInterleave)map->interleave,
                      (CUtensorMapSwizzle)map->swizzle, (CUtensorMapL2promotion)map->l2_promotion,
                      (CUtensorMapFloatOOBfill)map->oob_fill);
  if (r == CUDA_SUCCESS) return TCMMA_OK;
  const char *name = NULL;
  PFN_cuGetErrorName_v6000 error_name;
  *(void **)&error_name = tcmma__nvrtc_driver_symbol("cuGetErrorName", NULL);
  if (error_name) error_name(r, &name);
  return tcmma_fail(err, TCMMA_CUDA, "cuTensorMapEncodeTiled: %s (rank %d %s map at 0x%llx)",
                    name ? name : "unknown CUresult", map->rank, tcmma_prec_name(map->prec),
                    map->address);
}
