/* probe.c: the probe of an (operator, dtype) group, and what its outcome says. */
#include "probe.h"
#include "outcome.h"

#include <string.h>

const char *probe_dtype(const struct instance *in)
{
	for (size_t i = 0; i < in->noutputs; i++)
		if (in->outputs[i].type == V_TENSOR)
			return in->outputs[i].u.t.dtype;
	for (size_t i = 0; i < in->ninputs; i++)
		if (in->inputs[i].type == V_TENSOR)
			return in->inputs[i].u.t.dtype;
	return NULL;
}

uint64_t probe_elements(const struct instance *in)
{
	uint64_t total = 0;

	for (size_t i = 0; i < in->ninputs; i++) {
		const struct tensor *t = &in->inputs[i].u.t;
		uint64_t n = 1;

		if (in->inputs[i].type != V_TENSOR)
			continue;
		for (int k = 0; k < t->rank; k++) {
			uint64_t d = t->shape[k] >= 0 ? (uint64_t)t->shape[k] : 1;

			n = d && n > UINT64_MAX / d ? UINT64_MAX : n * d;
		}
		total = total > UINT64_MAX - n ? UINT64_MAX : total + n;
	}
	return total;
}

int probe_cmp(const struct instance *a, int a_undefined, const struct instance *b, int b_undefined)
{
	uint64_t ea, eb;

	if (!a_undefined != !b_undefined)
		return a_undefined ? 1 : -1;
	ea = probe_elements(a);
	eb = probe_elements(b);
	if (ea != eb)
		return ea < eb ? -1 : 1;
	if (a->nparams != b->nparams)
		return a->nparams < b->nparams ? -1 : 1;
	return strcmp(a->id, b->id);
}

enum probe_class probe_class(const char *outcome)
{
	switch (outcome_from_name(outcome)) {
	case OUTCOME_PASS:
	case OUTCOME_MISMATCH:
		return PROBE_SUPPORTED;
	case OUTCOME_UNSUPPORTED:
		return PROBE_UNSUPPORTED;
	default:
		return PROBE_FAILING;
	}
}

const char *probe_class_name(enum probe_class c)
{
	static const char *const names[PROBE_NCLASSES] = { "supported", "unsupported", "failing" };

	return (unsigned)c < PROBE_NCLASSES ? names[c] : "?";
}
