/* tcmma verify's parts (tools/cmd_verify*.c): the options, the device
 * plan's printing (cmd_verify_plan.c) and the runs and reports
 * (cmd_verify.c). */
#ifndef TCMMA_CMD_VERIFY_H
#define TCMMA_CMD_VERIFY_H

#include "tools/verify/plan.h"

typedef struct {
  int exec;              /* index into the executors */
  bool json, subset, list, have_arm, tap, ci_matrix;
  tcmma_arm arm;
  const char *text;      /* --case */
  const char *plan;      /* --plan DEVICES as given; NULL: none */
  verify_devices devices; /* --plan parsed */
  int device;            /* --device CC; 0: none */
  int shard, shards;     /* --shard I/N: I-1 and N; shards 0: no --shard */
  const char *shard_text;
  long plan_shards;      /* --shards N: shards per device of the printed plan (1) */
  long job_cost;         /* --job-cost C: instead, each device's cost / C shards; 0: none */
  const char *junit;     /* --junit FILE; NULL: none */
} verify_args;

/* Parses "75,80,89,90,100,120" (each a cc as every option reads one) into *out,
 * sorted; TCMMA_INVALID naming the bad entry (not a cc, out of range, a
 * duplicate, more than VERIFY_PLAN_DEVICES_MAX, empty). */
tcmma_status cmd_verify_devices_parse(const char *text, verify_devices *out, tcmma_error *err);

/* Parses "I/N" (1 <= I <= N <= VERIFY_SHARDS_MAX) into *index (0-based) and
 * *count; TCMMA_INVALID naming the text otherwise. */
tcmma_status cmd_verify_shard_parse(const char *text, int *index, int *count, tcmma_error *err);

/* --plan without --device: the plan as text or JSON, or (ci_matrix) the CI
 * jobs as one line of JSON; the exit status. */
int cmd_verify_plan_print(const verify_args *a);

/* The command a job of the plan runs: the runner script with the plan, the
 * device and the shard (tools/gpu-job.sh). */
void cmd_verify_job_command(const verify_args *a, int device, int shard, int shards, char *buf,
                            size_t cap);

#endif
