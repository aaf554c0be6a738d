/* tcmma: tensor-core tile-MMA emission for CUDA code generators.
 * The umbrella header: include this one to get the whole public API. */
#ifndef TCMMA_H
#define TCMMA_H

#define TCMMA_VERSION "0.3.0"

#include "tcmma/status.h"
#include "tcmma/prec.h"
#include "tcmma/numerics.h"
#include "tcmma/arm.h"
#include "tcmma/resolve.h"
#include "tcmma/layout.h"
#include "tcmma/buf.h"
#include "tcmma/plan.h"
#include "tcmma/render.h"
#include "tcmma/gemm.h"
#include "tcmma/ring.h"
#include "tcmma/arch.h"
#include "tcmma/compile.h"
#include "tcmma/ptx.h"
#include "tcmma/driver.h"
#include "tcmma/tensor_map.h"
#include "tcmma/tma.h"
#include "tcmma/wgmma.h"
#include "tcmma/tcgen05.h"
#include "tcmma/gemm_tma.h"
#include "tcmma/abi.h"
#include "tcmma/kernel_attrs.h"

#endif
