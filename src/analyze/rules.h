/* The rules: one file each, one entry each in the table of analyze.c. */
#ifndef SC_ANALYZE_RULES_H
#define SC_ANALYZE_RULES_H

#include "analyze/findings.h"

int sc_rule_legacy_stream(const sc_ctx *ctx, sc_finding_list *out, char *err, size_t err_size);
int sc_rule_pageable_async(const sc_ctx *ctx, sc_finding_list *out, char *err, size_t err_size);
int sc_rule_implicit_sync(const sc_ctx *ctx, sc_finding_list *out, char *err, size_t err_size);
int sc_rule_host_sync(const sc_ctx *ctx, sc_finding_list *out, char *err, size_t err_size);
int sc_rule_serializing_env(const sc_ctx *ctx, sc_finding_list *out, char *err,
                            size_t err_size);
int sc_rule_blocking_stream(const sc_ctx *ctx, sc_finding_list *out, char *err, size_t err_size);
int sc_rule_lazy_loading(const sc_ctx *ctx, sc_finding_list *out, char *err, size_t err_size);
int sc_rule_priority(const sc_ctx *ctx, sc_finding_list *out, char *err, size_t err_size);
int sc_rule_managed_faults(const sc_ctx *ctx, sc_finding_list *out, char *err,
                           size_t err_size);
int sc_rule_pin_per_step(const sc_ctx *ctx, sc_finding_list *out, char *err, size_t err_size);
int sc_rule_hardware_queue(const sc_ctx *ctx, sc_finding_list *out, char *err,
                           size_t err_size);
int sc_rule_peer_access(const sc_ctx *ctx, sc_finding_list *out, char *err, size_t err_size);
int sc_rule_cross_device(const sc_ctx *ctx, sc_finding_list *out, char *err,
                         size_t err_size);
int sc_rule_host_func(const sc_ctx *ctx, sc_finding_list *out, char *err, size_t err_size);
int sc_rule_no_room(const sc_ctx *ctx, sc_finding_list *out, char *err, size_t err_size);

#endif
