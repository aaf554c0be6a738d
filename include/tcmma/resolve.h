/* Resolution: storage triple + numerics policy + scope (+ device) -> arm
 * (tables/resolve.def). */
#ifndef TCMMA_RESOLVE_H
#define TCMMA_RESOLVE_H

#include "tcmma/arm.h"
#include "tcmma/numerics.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* public: the library builds with -fvisibility=hidden */

typedef enum { TCMMA_SCOPE_STATEMENT = 0, TCMMA_SCOPE_FRAGMENT = 1 } tcmma_scope;

typedef struct {
  tcmma_prec d, a, b;
} tcmma_triple;

/* "statement"|"fragment" <-> scope; parse fails with TCMMA_INVALID. */
const char *tcmma_scope_name(tcmma_scope scope);
tcmma_status tcmma_scope_parse(const char *s, tcmma_scope *out, tcmma_error *err);

/* The arm that renders triple under policy in scope on a device of compute
 * capability cc (0: any device, the first arm of the preference list).
 * TCMMA_OK with *out set; TCMMA_NO_ARM when no row covers the triple and
 * policy; TCMMA_FLOOR when every listed arm is above cc (the message names
 * the arms, floors and cc); TCMMA_INVALID for out-of-range inputs. *out is
 * TCMMA_ARM_NONE on failure. policy NULL means the default policy. */
tcmma_status tcmma_resolve(tcmma_triple triple, const tcmma_numerics *policy,
                           tcmma_scope scope, int cc, tcmma_arm *out, tcmma_error *err);

/* The longest preference list a scope of tables/resolve.def holds. */
#define TCMMA_RESOLVE_LIST_MAX 3

/* The preference list of triple under policy in scope (tables/resolve.def),
 * before any floor: writes up to cap arms to out and returns how many the
 * list holds (0: no row covers the triple and policy). policy NULL: default. */
size_t tcmma_resolve_list(tcmma_triple triple, const tcmma_numerics *policy,
                          tcmma_scope scope, tcmma_arm *out, size_t cap);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif
