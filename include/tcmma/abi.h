/* The ABI facts the library was built with, for bindings that declare its
 * structs themselves (the Python package, python/): they compare their own
 * sizes and enum counts with these at load and refuse a library that
 * differs (tables/abi.def lists the facts). */
#ifndef TCMMA_ABI_H
#define TCMMA_ABI_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* public: the library builds with -fvisibility=hidden */

/* TCMMA_VERSION of the headers the library was built from ("0.2.0"). */
const char *tcmma_version(void);

/* Fact i of tables/abi.def: *name is a public struct's name ("tcmma_call")
 * with its sizeof in *value, or an enum's count constant ("TCMMA_ARM_COUNT")
 * with its value. false (nothing written) when i is past the last fact or
 * name or value is NULL. */
bool tcmma_abi_fact(size_t i, const char **name, long *value);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif
