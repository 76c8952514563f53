/* record.h: the operator instance, ferry's unit of test knowledge (shared/DESIGN.md, "The operator
 * instance"). One instance is one JSON object on one line of a corpus:
 *
 *   {"id": "<32 hex digits>", "library": "onnx", "library_version": "1.23.2",
 *    "op": "Conv", "kind": "node", "context": {"opset": {"int": 13}},
 *    "params": {"kernel_shape": {"list": [{"int": 3}, {"int": 3}]}},
 *    "inputs": [{"tensor": {"dtype": "float32", "shape": [1, 3, 8, 8]}}],
 *    "outputs": [{"tensor": {"dtype": "float32", "shape": [1, 1, 6, 6]}}],
 *    "source": {"suite": "onnx-node", "test": "test_conv", "file": "...", "line": 12},
 *    "seen": 2}
 *
 * Identity: library, op, kind, context, params, inputs and outputs, and for a record of kind "graph"
 * (a generated multi-node ONNX graph, gen/graph.h) its "graph" member. The id is the xxh3-128 of the
 * canonical form of exactly those fields (record_canonical); library_version, source, seen and any
 * other member are provenance or annotations, carried along but never hashed, so the same usage
 * harvested twice, by two suites or two runs or two library versions, is one instance.
 *
 * Values are type-tagged objects with exactly one member:
 *   {"none": null}  {"bool": true}  {"int": 3}  {"float": 0.5}  {"str": "zeros"}  {"dtype": "int64"}
 *   {"list": [v, ...]}  {"tuple": [v, ...]}  {"dict": {"k": v, ...}}  {"callable": "torch.relu"}
 *   {"opaque": "<repr>"}  {"graph": {"format": "onnx", "data": "<base64>"}}
 *   {"tensor": {"dtype": "float32", "shape": [2, null, 3], "values": [...], "range": [lo, hi]}}
 * Integers beyond +-2^53 are decimal strings ({"int": "9223372036854775807"}), since a JSON reader
 * may hold numbers as doubles; floats nan, inf and -inf are the strings "nan", "inf", "-inf".
 * A tensor's shape has integers from 0 to 2^53, and null for a dimension unknown until run time.
 * A member appears at most once in any object of the identity, and in the record itself; a line
 * nests at most JSON_MAX_DEPTH (100) levels. "values" (flat, row-major) is kept
 * where the operator depends on them; "range" bounds the values of a tensor whose values were not kept.
 * An instance holding an opaque value anywhere cannot be migrated: it is kept, marked unmigratable.
 *
 * Ownership: an instance owns everything it points to; record_release frees it. */
#ifndef FERRY_RECORD_H
#define FERRY_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "err.h"

struct cJSON;

enum vtype {
	V_NONE, V_BOOL, V_INT, V_FLOAT, V_STR, V_DTYPE, V_LIST, V_TUPLE, V_DICT,
	V_TENSOR, V_CALLABLE, V_OPAQUE, V_GRAPH,
};

struct value;

struct tensor {
	char *dtype;
	int rank;
	int64_t *shape;        /* rank entries; TENSOR_DIM_UNKNOWN where the shape said null */
	struct cJSON *values;  /* NULL, or a flat array of numbers, strings ("nan", big ints), bools */
	bool has_range;
	double range[2];
};
#define TENSOR_DIM_UNKNOWN INT64_MIN

struct field {
	char *name;
	struct value *value;
};

struct value {
	enum vtype type;
	union {
		bool b;
		int64_t i;
		double f;
		char *s;                    /* V_STR, V_DTYPE, V_CALLABLE, V_OPAQUE */
		struct {                    /* V_LIST, V_TUPLE */
			struct value *items;
			size_t n;
		} seq;
		struct {                    /* V_DICT; kept sorted by name */
			struct field *fields;
			size_t n;
		} dict;
		struct tensor t;            /* V_TENSOR */
		struct {                    /* V_GRAPH */
			char *format;
			char *data;
		} graph;
	} u;
};

struct instance {
	char id[33];                 /* 32 lowercase hex digits and a NUL */
	char *library;
	char *library_version;       /* may be NULL */
	char *op;
	char *kind;
	struct field *context;       /* sorted by name */
	size_t ncontext;
	struct field *params;        /* sorted by name */
	size_t nparams;
	struct value *inputs;
	size_t ninputs;
	struct value *outputs;
	size_t noutputs;
	bool unmigratable;           /* an opaque value somewhere in the identity */
	struct cJSON *extra;         /* every non-identity member but "id" (source, seen, ...); owned */
	/* The "graph" member (plain JSON: inputs, constants, nodes, outputs), or NULL: held as its
	 * canonical text (sorted keys, no white space, numbers as record_canonical writes them), since
	 * it is hashed with the identity: two graphs with the same inputs and outputs are different
	 * tests. Owned. */
	char *graph;
};

#define INSTANCE_INIT { "", NULL, NULL, NULL, NULL, NULL, 0, NULL, 0, NULL, 0, NULL, 0, false, NULL, NULL }

void record_init(struct instance *in);
void record_release(struct instance *in);

const char *vtype_name(enum vtype t);
void value_release(struct value *v);

/* Build an instance from a parsed JSON object. Fills id and unmigratable. On a malformed record,
 * returns -1 with a message naming the offending member ("params.kernel_shape: ..."); the instance
 * is then released. */
int record_from_json(struct instance *in, const struct cJSON *obj, struct err *e);
/* Set in->id from the canonical form of its identity, for an instance built in memory (ferry
 * generate) rather than parsed. */
void record_hash(struct instance *in);
/* Same from text (one line). */
int record_parse(struct instance *in, const char *text, size_t len, struct err *e);

/* How deep a line of JSON may nest: real records reach 7 levels; cJSON gives up past 1000, and
 * Python's json.loads, in the templates that read the same line, well before that. */
#define JSON_MAX_DEPTH 100

/* Parse text (len bytes, one JSON value and nothing after it but white space) into *out, a new
 * reference the caller cJSON_Delete()s. On failure *out is NULL and e says why, as json_parse_error. */
int json_parse_text(const char *text, size_t len, struct cJSON **out, struct err *e);
/* Fill e for JSON text that cJSON could not parse (end: where it stopped): "JSON nested too deep"
 * past JSON_MAX_DEPTH (cJSON's own limit is beyond it), "truncated JSON" when the text ends inside a
 * string or an open bracket, else "malformed JSON at column N". Returns -1. */
int json_parse_error(struct err *e, const char *text, size_t len, const char *end);

/* Append the canonical form of the identity fields: sorted keys, no white space, integers exact,
 * floats in the shortest form that reads back to the same double. */
void record_canonical(const struct instance *in, struct buf *out);
/* Append the full record as one line of JSON (no newline): id first, identity in canonical form, then
 * the annotations in the order they came. */
void record_write(const struct instance *in, struct buf *out);
/* Append plain JSON j (no tagged values) in canonical form: object members sorted by name, no white
 * space, numbers and strings as in a value's canonical form. -1 when an object of j has a member
 * twice (its name in e), since the copies could not both be kept. */
int json_canonical(const struct cJSON *j, struct buf *out, struct err *e);
/* Append a value in canonical form. */
void value_canonical(const struct value *v, struct buf *out);

/* Append the shortest decimal form of d that strtod reads back as d ("nan", "inf", "-inf" quoted). */
void json_add_double(struct buf *out, double d);

/* Where a test came from, by its provenance (a record's top-level members, or an instance's extra):
 * RECORD_VARIANT (ferry vary, or go's one-change neighbours: a "variant" member), RECORD_GENERATED
 * (ferry generate: source.suite "generate"), else RECORD_HARVESTED. record_origin_name: "variant",
 * "generated", "harvested". */
enum record_origin { RECORD_HARVESTED, RECORD_VARIANT, RECORD_GENERATED };
enum record_origin record_origin(const struct cJSON *prov);
const char *record_origin_name(enum record_origin o);
/* The test's name for people and for CI, from its provenance and id: what it is, then the id's start,
 * which keeps it unique and the same from run to run. "test_ceil [02588f5ad320]", "variant of
 * test_convtranspose_autopad_same: param output_shape=(2,2) added [..]", "generated by ferry generate
 * (seed 1, #7) [..]". The caller frees it. */
char *record_name(const struct cJSON *prov, const char *id);
/* The same without the id: NULL when the provenance says nothing (no source test, not made by
 * ferry). */
char *record_what(const struct cJSON *prov);

/* Look up a parameter by name; NULL if absent. */
const struct value *record_param(const struct instance *in, const char *name);
/* Look up a member of the context by name ("dtype", "opset"); NULL if absent. */
const struct value *record_context(const struct instance *in, const char *name);

#endif
