/* Device lists and shards (tools/verify/plan.h): a list's text and the
 * split of a selection into shards even by expected cost. */
#include <stdlib.h>
#include <string.h>
#include "tools/verify/plan.h"

void verify_devices_format(const verify_devices *d, char *buf, size_t cap) {
  size_t used = 0;
  if (cap) buf[0] = '\0';
  for (size_t i = 0; i < d->n && used < cap; i++) {
    int w = snprintf(buf + used, cap - used, "%s%d", i ? "," : "", d->cc[i]);
    if (w < 0) break;
    used += (size_t)w;
  }
}

/* One item's place in the order the split takes: by cost, largest first,
 * then by kind and name (the names are unique within each matrix), so that
 * the split does not depend on the order the items came in. */
typedef struct {
  const verify_item *item;
  size_t index;
} ranked;

static int cmp_cost(const void *a, const void *b) {
  const verify_item *x = ((const ranked *)a)->item, *y = ((const ranked *)b)->item;
  if (x->cost != y->cost) return x->cost > y->cost ? -1 : 1;
  if (x->kind != y->kind) return x->kind < y->kind ? -1 : 1;
  return strcmp(x->name, y->name);
}

void verify_shard_assign(const verify_item *items, size_t n, int count, int *shard) {
  if (count <= 1 || n == 0) {
    for (size_t i = 0; i < n; i++) shard[i] = 0;
    return;
  }
  ranked *order = malloc(n * sizeof *order);
  long long *load = calloc((size_t)count, sizeof *load);
  if (!order || !load) { /* out of memory: round robin still puts every item in one shard */
    for (size_t i = 0; i < n; i++) shard[i] = (int)(i % (size_t)count);
    free(order), free(load);
    return;
  }
  for (size_t i = 0; i < n; i++) order[i] = (ranked){&items[i], i};
  qsort(order, n, sizeof *order, cmp_cost);
  for (size_t j = 0; j < n; j++) {
    int best = 0;
    for (int s = 1; s < count; s++)
      if (load[s] < load[best]) best = s;
    shard[order[j].index] = best;
    load[best] += order[j].item->cost;
  }
  free(order), free(load);
}
