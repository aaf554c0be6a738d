/* The simulator's launch defaults, written once: the inline
 * tcmma_sim_config_default of sim.h and bindings both take them from here,
 * filled only to the caller's size. */
#include <string.h>
#include "tcmma/sim.h"

void tcmma_sim_config_init(tcmma_sim_config *out, size_t size) {
  if (!out || size < sizeof out->size) return;
  tcmma_sim_config c;
  memset(&c, 0, sizeof c);
  c.size = size;
  c.grid[0] = c.grid[1] = c.grid[2] = 1;
  c.block[0] = 32, c.block[1] = c.block[2] = 1;
  memcpy(out, &c, size < sizeof c ? size : sizeof c);
  if (size > sizeof c) memset((char *)out + sizeof c, 0, size - sizeof c);
}
