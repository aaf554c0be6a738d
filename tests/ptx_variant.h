/* Force-included (-include) when the Makefile builds the PTX reader
 * (nvrtc/ptx/reader.c, stream.c) a second and third time for
 * test_ptx_portable and fuzz_ptx: without its AVX2 path (-DTCMMA_PTX_NO_AVX2)
 * and without SSE2 as well (-U__SSE2__: the byte loops a CPU without
 * either runs). Every external name the two files define gets the suffix
 * _<TCMMA_PTX_VARIANT> (tcmma_ptx_parse_scalar, ...), so a test links the
 * variants beside the library's own reader and compares their reads. */
#ifndef TCMMA_PTX_VARIANT_H
#define TCMMA_PTX_VARIANT_H

#define TCMMA_PTX_VARIANT_CAT2(name, variant) name##_##variant
#define TCMMA_PTX_VARIANT_CAT(name, variant) TCMMA_PTX_VARIANT_CAT2(name, variant)
#define TCMMA_PTX_VARIANT_NAME(name) TCMMA_PTX_VARIANT_CAT(name, TCMMA_PTX_VARIANT)

#define tcmma_ptx_parse TCMMA_PTX_VARIANT_NAME(tcmma_ptx_parse)
#define tcmma_ptx_parse_stream TCMMA_PTX_VARIANT_NAME(tcmma_ptx_parse_stream)
#define tcmma_ptx_parse_fd TCMMA_PTX_VARIANT_NAME(tcmma_ptx_parse_fd)
#define tcmma_ptx_info_free TCMMA_PTX_VARIANT_NAME(tcmma_ptx_info_free)
#define tcmma__ptx_reader_init TCMMA_PTX_VARIANT_NAME(tcmma__ptx_reader_init)
#define tcmma__ptx_reader_free TCMMA_PTX_VARIANT_NAME(tcmma__ptx_reader_free)
#define tcmma__ptx_check_bytes TCMMA_PTX_VARIANT_NAME(tcmma__ptx_check_bytes)
#define tcmma__ptx_any_text TCMMA_PTX_VARIANT_NAME(tcmma__ptx_any_text)
#define tcmma__ptx_read_all TCMMA_PTX_VARIANT_NAME(tcmma__ptx_read_all)
#define tcmma__ptx_read_more TCMMA_PTX_VARIANT_NAME(tcmma__ptx_read_more)
#define tcmma__ptx_drop TCMMA_PTX_VARIANT_NAME(tcmma__ptx_drop)
#define tcmma__ptx_finish TCMMA_PTX_VARIANT_NAME(tcmma__ptx_finish)
#define tcmma__ptx_parse_chunked TCMMA_PTX_VARIANT_NAME(tcmma__ptx_parse_chunked)

#endif
