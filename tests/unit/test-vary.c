/* test-vary.c: the variation rules of ferry vary (vary/rules.h) on small hand-written records, one
 * per library and kind: the exact labels each makes, the exact record of chosen candidates, the
 * same order under the same seed, and the pre-id that lets the engine skip a candidate already
 * in the corpus. */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "libraries.h"
#include "rules.h"
#include "tap.h"
#include "vary.h"
#include "xalloc.h"

static const char *const records[] = {
	"{\"library\":\"torch\",\"op\":\"torch.add\",\"kind\":\"function\",\"context\":{},\"params\":{\"alpha\":{\"int\":2}},\"inputs\":[{\"tensor\":{\"dtype\":\"float32\",\"shape\":[2,2],\"values\":[1.5,-2.5,300,0]}},{\"tensor\":{\"dtype\":\"float32\",\"shape\":[2,2],\"range\":[-9,9]}}],\"outputs\":[{\"tensor\":{\"dtype\":\"float32\",\"shape\":[2,2]}}],\"source\":{\"suite\":\"t\"},\"seen\":2}",
	"{\"library\":\"torch\",\"op\":\"torch.nn.MaxPool2d\",\"kind\":\"module\",\"context\":{},\"params\":{\"kernel_size\":{\"int\":3},\"stride\":{\"tuple\":[{\"int\":2},{\"int\":2}]}},\"inputs\":[{\"tensor\":{\"dtype\":\"float32\",\"shape\":[1,3,8,8],\"range\":[-1,1]}}],\"outputs\":[{\"tensor\":{\"dtype\":\"float32\",\"shape\":[1,3,3,3]}}]}",
	"{\"library\":\"keras\",\"op\":\"keras.layers.Dense\",\"kind\":\"layer\",\"context\":{},\"params\":{\"dtype\":{\"str\":\"float32\"},\"units\":{\"int\":4}},\"inputs\":[{\"tensor\":{\"dtype\":\"float32\",\"shape\":[null,3]}}],\"outputs\":[{\"tensor\":{\"dtype\":\"float32\",\"shape\":[null,4]}}]}",
	"{\"library\":\"onnx\",\"op\":\"Conv\",\"kind\":\"node\",\"context\":{\"opset\":{\"int\":13}},\"params\":{\"kernel_shape\":{\"list\":[{\"int\":3},{\"int\":3}]},\"auto_pad\":{\"str\":\"NOTSET\"}},\"inputs\":[{\"tensor\":{\"dtype\":\"float32\",\"shape\":[1,1,5,5],\"range\":[-3,3]}},{\"tensor\":{\"dtype\":\"float32\",\"shape\":[1,1,3,3],\"range\":[-1,1]}},{\"none\":null}],\"outputs\":[{\"tensor\":{\"dtype\":\"float32\",\"shape\":[1,1,3,3]}}]}",
	"{\"library\":\"torch\",\"op\":\"torch.pow\",\"kind\":\"function\",\"context\":{},\"params\":{},\"inputs\":[{\"tensor\":{\"dtype\":\"int64\",\"shape\":[1],\"values\":[2]}},{\"float\":0.5}],\"outputs\":[{\"tensor\":{\"dtype\":\"float32\",\"shape\":[1]}}]}",
	"{\"library\":\"onnx\",\"op\":\"Clip\",\"kind\":\"node\",\"context\":{\"opset\":{\"int\":13}},\"params\":{},\"inputs\":[{\"tensor\":{\"dtype\":\"float32\",\"shape\":[2,3],\"range\":[-3,3]}},{\"tensor\":{\"dtype\":\"float32\",\"shape\":[],\"values\":[0]}}],\"outputs\":[{\"tensor\":{\"dtype\":\"float32\",\"shape\":[2,3]}}]}",
	"{\"library\":\"onnx\",\"op\":\"ReduceSum\",\"kind\":\"node\",\"context\":{\"opset\":{\"int\":13}},\"params\":{\"keepdims\":{\"int\":1}},\"inputs\":[{\"tensor\":{\"dtype\":\"float32\",\"shape\":[2,3],\"range\":[-3,3]}},{\"tensor\":{\"dtype\":\"int64\",\"shape\":[1],\"values\":[1]}}],\"outputs\":[{\"tensor\":{\"dtype\":\"float32\",\"shape\":[2,1]}}]}",
	"{\"library\":\"onnx\",\"op\":\"Cast\",\"kind\":\"node\",\"context\":{\"opset\":{\"int\":13}},\"params\":{\"to\":{\"int\":1}},\"inputs\":[{\"tensor\":{\"dtype\":\"int32\",\"shape\":[3],\"range\":[-3,3]}}],\"outputs\":[{\"tensor\":{\"dtype\":\"float32\",\"shape\":[3]}}]}",
	"{\"library\":\"onnx\",\"op\":\"Cast\",\"kind\":\"node\",\"context\":{\"opset\":{\"int\":13}},\"params\":{\"to\":{\"int\":7}},\"inputs\":[{\"tensor\":{\"dtype\":\"float32\",\"shape\":[3],\"range\":[-3,3]}}],\"outputs\":[{\"tensor\":{\"dtype\":\"int64\",\"shape\":[3]}}]}",
};

static const struct expect { int rec; const char *label, *json; } expects[] = {
	{ 0, "dtype:int8",
	  "{\"context\":{},\"inputs\":[{\"tensor\":{\"dtype\":\"int8\",\"shape\":[2,2],\"values\":[1,-2,127,0]}},{\"tensor\":{\"dtype\":\"int8\",\"range\":[-9,9],\"shape\":[2,2]}}],\"kind\":\"function\",\"library\":\"torch\",\"op\":\"torch.add\",\"outputs\":[{\"tensor\":{\"dtype\":\"float32\",\"shape\":[2,2]}}],\"params\":{\"alpha\":{\"int\":2}}}" },
	{ 0, "dtype:uint8",
	  "{\"context\":{},\"inputs\":[{\"tensor\":{\"dtype\":\"uint8\",\"shape\":[2,2],\"values\":[1,0,255,0]}},{\"tensor\":{\"dtype\":\"uint8\",\"range\":[0,9],\"shape\":[2,2]}}],\"kind\":\"function\",\"library\":\"torch\",\"op\":\"torch.add\",\"outputs\":[{\"tensor\":{\"dtype\":\"float32\",\"shape\":[2,2]}}],\"params\":{\"alpha\":{\"int\":2}}}" },
	{ 0, "dtype:bool",
	  "{\"context\":{},\"inputs\":[{\"tensor\":{\"dtype\":\"bool\",\"shape\":[2,2],\"values\":[true,true,true,false]}},{\"tensor\":{\"dtype\":\"bool\",\"range\":[0,1],\"shape\":[2,2]}}],\"kind\":\"function\",\"library\":\"torch\",\"op\":\"torch.add\",\"outputs\":[{\"tensor\":{\"dtype\":\"float32\",\"shape\":[2,2]}}],\"params\":{\"alpha\":{\"int\":2}}}" },
	{ 0, "dtype:complex64",
	  "{\"context\":{},\"inputs\":[{\"tensor\":{\"dtype\":\"complex64\",\"range\":[-2.5,300],\"shape\":[2,2]}},{\"tensor\":{\"dtype\":\"complex64\",\"range\":[-9,9],\"shape\":[2,2]}}],\"kind\":\"function\",\"library\":\"torch\",\"op\":\"torch.add\",\"outputs\":[{\"tensor\":{\"dtype\":\"float32\",\"shape\":[2,2]}}],\"params\":{\"alpha\":{\"int\":2}}}" },
	{ 0, "rank:+1",
	  "{\"context\":{},\"inputs\":[{\"tensor\":{\"dtype\":\"float32\",\"shape\":[2,2,2],\"values\":[1.5,-2.5,300,0,1.5,-2.5,300,0]}},{\"tensor\":{\"dtype\":\"float32\",\"range\":[-9,9],\"shape\":[2,2,2]}}],\"kind\":\"function\",\"library\":\"torch\",\"op\":\"torch.add\",\"outputs\":[{\"tensor\":{\"dtype\":\"float32\",\"shape\":[2,2]}}],\"params\":{\"alpha\":{\"int\":2}}}" },
	{ 0, "rank:-1",
	  "{\"context\":{},\"inputs\":[{\"tensor\":{\"dtype\":\"float32\",\"shape\":[2],\"values\":[1.5,-2.5]}},{\"tensor\":{\"dtype\":\"float32\",\"range\":[-9,9],\"shape\":[2]}}],\"kind\":\"function\",\"library\":\"torch\",\"op\":\"torch.add\",\"outputs\":[{\"tensor\":{\"dtype\":\"float32\",\"shape\":[2,2]}}],\"params\":{\"alpha\":{\"int\":2}}}" },
	{ 0, "dim:0=1",
	  "{\"context\":{},\"inputs\":[{\"tensor\":{\"dtype\":\"float32\",\"shape\":[1,2],\"values\":[1.5,-2.5]}},{\"tensor\":{\"dtype\":\"float32\",\"range\":[-9,9],\"shape\":[1,2]}}],\"kind\":\"function\",\"library\":\"torch\",\"op\":\"torch.add\",\"outputs\":[{\"tensor\":{\"dtype\":\"float32\",\"shape\":[2,2]}}],\"params\":{\"alpha\":{\"int\":2}}}" },
	{ 0, "dim:1=0",
	  "{\"context\":{},\"inputs\":[{\"tensor\":{\"dtype\":\"float32\",\"shape\":[2,0],\"values\":[]}},{\"tensor\":{\"dtype\":\"float32\",\"range\":[-9,9],\"shape\":[2,0]}}],\"kind\":\"function\",\"library\":\"torch\",\"op\":\"torch.add\",\"outputs\":[{\"tensor\":{\"dtype\":\"float32\",\"shape\":[2,2]}}],\"params\":{\"alpha\":{\"int\":2}}}" },
	{ 0, "param:alpha=-1",
	  "{\"context\":{},\"inputs\":[{\"tensor\":{\"dtype\":\"float32\",\"shape\":[2,2],\"values\":[1.5,-2.5,300,0]}},{\"tensor\":{\"dtype\":\"float32\",\"range\":[-9,9],\"shape\":[2,2]}}],\"kind\":\"function\",\"library\":\"torch\",\"op\":\"torch.add\",\"outputs\":[{\"tensor\":{\"dtype\":\"float32\",\"shape\":[2,2]}}],\"params\":{\"alpha\":{\"int\":-1}}}" },
	{ 1, "spatial:kernel",
	  "{\"context\":{},\"inputs\":[{\"tensor\":{\"dtype\":\"float32\",\"range\":[-1,1],\"shape\":[1,3,3,3]}}],\"kind\":\"module\",\"library\":\"torch\",\"op\":\"torch.nn.MaxPool2d\",\"outputs\":[{\"tensor\":{\"dtype\":\"float32\",\"shape\":[1,3,3,3]}}],\"params\":{\"kernel_size\":{\"int\":3},\"stride\":{\"tuple\":[{\"int\":2},{\"int\":2}]}}}" },
	{ 1, "spatial:kernel-1",
	  "{\"context\":{},\"inputs\":[{\"tensor\":{\"dtype\":\"float32\",\"range\":[-1,1],\"shape\":[1,3,2,2]}}],\"kind\":\"module\",\"library\":\"torch\",\"op\":\"torch.nn.MaxPool2d\",\"outputs\":[{\"tensor\":{\"dtype\":\"float32\",\"shape\":[1,3,3,3]}}],\"params\":{\"kernel_size\":{\"int\":3},\"stride\":{\"tuple\":[{\"int\":2},{\"int\":2}]}}}" },
	{ 1, "spatial:kernel+stride-1",
	  "{\"context\":{},\"inputs\":[{\"tensor\":{\"dtype\":\"float32\",\"range\":[-1,1],\"shape\":[1,3,4,4]}}],\"kind\":\"module\",\"library\":\"torch\",\"op\":\"torch.nn.MaxPool2d\",\"outputs\":[{\"tensor\":{\"dtype\":\"float32\",\"shape\":[1,3,3,3]}}],\"params\":{\"kernel_size\":{\"int\":3},\"stride\":{\"tuple\":[{\"int\":2},{\"int\":2}]}}}" },
	{ 1, "spatial:nonsquare",
	  "{\"context\":{},\"inputs\":[{\"tensor\":{\"dtype\":\"float32\",\"range\":[-1,1],\"shape\":[1,3,8,9]}}],\"kind\":\"module\",\"library\":\"torch\",\"op\":\"torch.nn.MaxPool2d\",\"outputs\":[{\"tensor\":{\"dtype\":\"float32\",\"shape\":[1,3,3,3]}}],\"params\":{\"kernel_size\":{\"int\":3},\"stride\":{\"tuple\":[{\"int\":2},{\"int\":2}]}}}" },
	{ 1, "param:stride=(2,3)",
	  "{\"context\":{},\"inputs\":[{\"tensor\":{\"dtype\":\"float32\",\"range\":[-1,1],\"shape\":[1,3,8,8]}}],\"kind\":\"module\",\"library\":\"torch\",\"op\":\"torch.nn.MaxPool2d\",\"outputs\":[{\"tensor\":{\"dtype\":\"float32\",\"shape\":[1,3,3,3]}}],\"params\":{\"kernel_size\":{\"int\":3},\"stride\":{\"tuple\":[{\"int\":2},{\"int\":3}]}}}" },
	{ 1, "pair:kernel_size=-1,stride=(1,1)",
	  "{\"context\":{},\"inputs\":[{\"tensor\":{\"dtype\":\"float32\",\"range\":[-1,1],\"shape\":[1,3,8,8]}}],\"kind\":\"module\",\"library\":\"torch\",\"op\":\"torch.nn.MaxPool2d\",\"outputs\":[{\"tensor\":{\"dtype\":\"float32\",\"shape\":[1,3,3,3]}}],\"params\":{\"kernel_size\":{\"int\":-1},\"stride\":{\"tuple\":[{\"int\":1},{\"int\":1}]}}}" },
	{ 2, "dtype:int32",
	  "{\"context\":{},\"inputs\":[{\"tensor\":{\"dtype\":\"int32\",\"shape\":[null,3]}}],\"kind\":\"layer\",\"library\":\"keras\",\"op\":\"keras.layers.Dense\",\"outputs\":[{\"tensor\":{\"dtype\":\"float32\",\"shape\":[null,4]}}],\"params\":{\"dtype\":{\"str\":\"int32\"},\"units\":{\"int\":4}}}" },
	{ 2, "rank:+1",
	  "{\"context\":{},\"inputs\":[{\"tensor\":{\"dtype\":\"float32\",\"shape\":[2,null,3]}}],\"kind\":\"layer\",\"library\":\"keras\",\"op\":\"keras.layers.Dense\",\"outputs\":[{\"tensor\":{\"dtype\":\"float32\",\"shape\":[null,4]}}],\"params\":{\"dtype\":{\"str\":\"float32\"},\"units\":{\"int\":4}}}" },
	{ 2, "dim:1=1",
	  "{\"context\":{},\"inputs\":[{\"tensor\":{\"dtype\":\"float32\",\"shape\":[null,1]}}],\"kind\":\"layer\",\"library\":\"keras\",\"op\":\"keras.layers.Dense\",\"outputs\":[{\"tensor\":{\"dtype\":\"float32\",\"shape\":[null,4]}}],\"params\":{\"dtype\":{\"str\":\"float32\"},\"units\":{\"int\":4}}}" },
	{ 3, "dtype:uint8",
	  "{\"context\":{\"opset\":{\"int\":13}},\"inputs\":[{\"tensor\":{\"dtype\":\"uint8\",\"range\":[0,3],\"shape\":[1,1,5,5]}},{\"tensor\":{\"dtype\":\"uint8\",\"range\":[0,1],\"shape\":[1,1,3,3]}},{\"none\":null}],\"kind\":\"node\",\"library\":\"onnx\",\"op\":\"Conv\",\"outputs\":[{\"tensor\":{\"dtype\":\"float32\",\"shape\":[1,1,3,3]}}],\"params\":{\"auto_pad\":{\"str\":\"NOTSET\"},\"kernel_shape\":{\"list\":[{\"int\":3},{\"int\":3}]}}}" },
	{ 3, "spatial:kernel",
	  "{\"context\":{\"opset\":{\"int\":13}},\"inputs\":[{\"tensor\":{\"dtype\":\"float32\",\"range\":[-3,3],\"shape\":[1,1,3,3]}},{\"tensor\":{\"dtype\":\"float32\",\"range\":[-1,1],\"shape\":[1,1,3,3]}},{\"none\":null}],\"kind\":\"node\",\"library\":\"onnx\",\"op\":\"Conv\",\"outputs\":[{\"tensor\":{\"dtype\":\"float32\",\"shape\":[1,1,3,3]}}],\"params\":{\"auto_pad\":{\"str\":\"NOTSET\"},\"kernel_shape\":{\"list\":[{\"int\":3},{\"int\":3}]}}}" },
	{ 3, "param:kernel_shape=[4,3]",
	  "{\"context\":{\"opset\":{\"int\":13}},\"inputs\":[{\"tensor\":{\"dtype\":\"float32\",\"range\":[-3,3],\"shape\":[1,1,5,5]}},{\"tensor\":{\"dtype\":\"float32\",\"range\":[-1,1],\"shape\":[1,1,3,3]}},{\"none\":null}],\"kind\":\"node\",\"library\":\"onnx\",\"op\":\"Conv\",\"outputs\":[{\"tensor\":{\"dtype\":\"float32\",\"shape\":[1,1,3,3]}}],\"params\":{\"auto_pad\":{\"str\":\"NOTSET\"},\"kernel_shape\":{\"list\":[{\"int\":4},{\"int\":3}]}}}" },
	{ 3, "rank:-1",
	  "{\"context\":{\"opset\":{\"int\":13}},\"inputs\":[{\"tensor\":{\"dtype\":\"float32\",\"range\":[-3,3],\"shape\":[1,5,5]}},{\"tensor\":{\"dtype\":\"float32\",\"range\":[-1,1],\"shape\":[1,1,3,3]}},{\"none\":null}],\"kind\":\"node\",\"library\":\"onnx\",\"op\":\"Conv\",\"outputs\":[{\"tensor\":{\"dtype\":\"float32\",\"shape\":[1,1,3,3]}}],\"params\":{\"auto_pad\":{\"str\":\"NOTSET\"},\"kernel_shape\":{\"list\":[{\"int\":3},{\"int\":3}]}}}" },
	{ 4, "scalar:in:1=tensor",
	  "{\"context\":{},\"inputs\":[{\"tensor\":{\"dtype\":\"int64\",\"shape\":[1],\"values\":[2]}},{\"tensor\":{\"dtype\":\"float32\",\"shape\":[],\"values\":[0.5]}}],\"kind\":\"function\",\"library\":\"torch\",\"op\":\"torch.pow\",\"outputs\":[{\"tensor\":{\"dtype\":\"float32\",\"shape\":[1]}}],\"params\":{}}" },
	{ 4, "tensor:in:0=number",
	  "{\"context\":{},\"inputs\":[{\"int\":2},{\"float\":0.5}],\"kind\":\"function\",\"library\":\"torch\",\"op\":\"torch.pow\",\"outputs\":[{\"tensor\":{\"dtype\":\"float32\",\"shape\":[1]}}],\"params\":{}}" },
	{ 4, "in:1=nan",
	  "{\"context\":{},\"inputs\":[{\"tensor\":{\"dtype\":\"int64\",\"shape\":[1],\"values\":[2]}},{\"float\":\"nan\"}],\"kind\":\"function\",\"library\":\"torch\",\"op\":\"torch.pow\",\"outputs\":[{\"tensor\":{\"dtype\":\"float32\",\"shape\":[1]}}],\"params\":{}}" },
	{ 4, "dtype:complex64",
	  "{\"context\":{},\"inputs\":[{\"tensor\":{\"dtype\":\"complex64\",\"range\":[2,2],\"shape\":[1]}},{\"float\":0.5}],\"kind\":\"function\",\"library\":\"torch\",\"op\":\"torch.pow\",\"outputs\":[{\"tensor\":{\"dtype\":\"float32\",\"shape\":[1]}}],\"params\":{}}" },
	{ 4, "scalar:in:0=0-d",
	  "{\"context\":{},\"inputs\":[{\"tensor\":{\"dtype\":\"int64\",\"shape\":[],\"values\":[2]}},{\"float\":0.5}],\"kind\":\"function\",\"library\":\"torch\",\"op\":\"torch.pow\",\"outputs\":[{\"tensor\":{\"dtype\":\"float32\",\"shape\":[1]}}],\"params\":{}}" },
	{ 6, "dtype:in:1:int32",
	  "{\"context\":{\"opset\":{\"int\":13}},\"inputs\":[{\"tensor\":{\"dtype\":\"float32\",\"range\":[-3,3],\"shape\":[2,3]}},{\"tensor\":{\"dtype\":\"int32\",\"shape\":[1],\"values\":[1]}}],\"kind\":\"node\",\"library\":\"onnx\",\"op\":\"ReduceSum\",\"outputs\":[{\"tensor\":{\"dtype\":\"float32\",\"shape\":[2,1]}}],\"params\":{\"keepdims\":{\"int\":1}}}" },
};

/* Every label of each record, sorted. */
static const char *const all_labels[] = {
	"dim:0=1 dim:1=0 dtype:bfloat16 dtype:bool dtype:complex128 dtype:complex64 dtype:float16 dtype:float64 dtype:int16 dtype:int32 dtype:int64 dtype:int8 dtype:uint8 param:alpha=(2,) param:alpha=-1 param:alpha=-2 param:alpha=0 param:alpha=1 param:alpha=1024 param:alpha=2.0 param:alpha=[2] rank:+1 rank:-1",
	"dim:1=1 dim:3=0 dtype:bfloat16 dtype:bool dtype:complex128 dtype:complex64 dtype:float16 dtype:float64 dtype:int16 dtype:int32 dtype:int64 dtype:int8 dtype:uint8 pair:kernel_size=-1,stride=(-2,-2) pair:kernel_size=-1,stride=(1,1) pair:kernel_size=1,stride=(0,0) param:kernel_size=(3,) param:kernel_size=-1 param:kernel_size=-2 param:kernel_size=0 param:kernel_size=1 param:kernel_size=1024 param:kernel_size=3.0 param:kernel_size=[3] param:stride=(-1,-1) param:stride=(-2,-2) param:stride=(0,0) param:stride=(1,1) param:stride=(1024,1024) param:stride=(2,3) rank:+1 rank:-1 spatial:kernel spatial:kernel+stride-1 spatial:kernel-1 spatial:nonsquare",
	"dim:1=0 dim:1=1 dtype:bfloat16 dtype:bool dtype:float16 dtype:float64 dtype:int16 dtype:int32 dtype:int64 dtype:int8 dtype:uint16 dtype:uint32 dtype:uint8 param:units=(4,) param:units=-1 param:units=-2 param:units=0 param:units=1 param:units=1024 param:units=4.0 param:units=[4] rank:+1",
	"dim:2=0 dim:2=1 dtype:bfloat16 dtype:bool dtype:float16 dtype:float64 dtype:int16 dtype:int32 dtype:int64 dtype:int8 dtype:uint16 dtype:uint32 dtype:uint64 dtype:uint8 param:kernel_shape=[-1,-1] param:kernel_shape=[-2,-2] param:kernel_shape=[0,0] param:kernel_shape=[1,1] param:kernel_shape=[1024,1024] param:kernel_shape=[4,3] rank:+1 rank:-1 spatial:kernel spatial:kernel-1 spatial:nonsquare",
	"dim:0=0 dtype:bfloat16 dtype:bool dtype:complex128 dtype:complex64 dtype:float16 dtype:float32 dtype:float64 dtype:int16 dtype:int32 dtype:int8 dtype:uint8 in:1=(0.5,) in:1=-1.5 in:1=0 in:1=1 in:1=1e-30 in:1=1e30 in:1=[0.5] in:1=inf in:1=nan rank:+1 rank:-1 scalar:in:0=0-d scalar:in:1=tensor tensor:in:0=number",
	"dim:0=0 dim:1=1 dtype:bfloat16 dtype:bool dtype:float16 dtype:float64 dtype:int16 dtype:int32 dtype:int64 dtype:int8 dtype:uint16 dtype:uint32 dtype:uint64 dtype:uint8 rank:+1 rank:-1",
	"dim:1=0 dim:1=1 dtype:bfloat16 dtype:bool dtype:float16 dtype:float64 dtype:in:1:bfloat16 dtype:in:1:bool dtype:in:1:float16 dtype:in:1:float32 dtype:in:1:float64 dtype:in:1:int16 dtype:in:1:int32 dtype:in:1:int8 dtype:in:1:uint16 dtype:in:1:uint32 dtype:in:1:uint64 dtype:in:1:uint8 dtype:int16 dtype:int32 dtype:int64 dtype:int8 dtype:uint16 dtype:uint32 dtype:uint64 dtype:uint8 param:keepdims=0 rank:+1 rank:-1",
	"dim:0=0 dim:0=1 dtype:bfloat16 dtype:bool dtype:float16 dtype:float32 dtype:float64 dtype:int16 dtype:int64 dtype:int8 dtype:uint16 dtype:uint32 dtype:uint64 dtype:uint8 param:to=-1 param:to=-2 param:to=0 param:to=1024 param:to=2 param:to=7 rank:+1 rank:-1",
	"dim:0=0 dim:0=1 dtype:bfloat16 dtype:bool dtype:float16 dtype:float64 dtype:int16 dtype:int32 dtype:int64 dtype:int8 dtype:uint16 dtype:uint32 dtype:uint64 dtype:uint8 param:to=-1 param:to=-2 param:to=0 param:to=1 param:to=1024 rank:+1 rank:-1",
};

#define NRECORDS (sizeof(records) / sizeof(records[0]))
#define NEXPECTS (sizeof(expects) / sizeof(expects[0]))

static struct rules_pools pools;
static struct instance ins[NRECORDS];

/* torch.nn.functional.normalize as OpInfo has it: two float parameters and an int. */
static const char normalize[] =
	"{\"library\":\"torch\",\"op\":\"torch.nn.functional.normalize\",\"kind\":\"function\",\"context\":{},"
	"\"params\":{\"dim\":{\"int\":1},\"eps\":{\"float\":1e-12},\"p\":{\"float\":2}},"
	"\"inputs\":[{\"tensor\":{\"dtype\":\"float32\",\"shape\":[2,3],\"range\":[-1,1]}}],"
	"\"outputs\":[{\"tensor\":{\"dtype\":\"float32\",\"shape\":[2,3]}}]}";
static struct instance norm;

static int label_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The labels of c, sorted, joined by spaces (caller frees). */
static char *labels(const struct rules_cands *c)
{
	const char **v = xcalloc(c->n + 1, sizeof(*v));
	struct buf b = BUF_INIT;

	for (size_t i = 0; i < c->n; i++)
		v[i] = c->v[i].label;
	qsort(v, c->n, sizeof(*v), label_cmp);
	for (size_t i = 0; i < c->n; i++)
		buf_addf(&b, "%s%s", i ? " " : "", v[i]);
	free(v);
	return b.data ? buf_detach(&b) : xstrdup("");
}

/* The canonical form of the candidate labelled label, or NULL (caller frees). */
static char *find(const struct rules_cands *c, const char *label)
{
	struct buf b = BUF_INIT;

	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->v[i].label, label)) {
			record_canonical(&c->v[i].in, &b);
			return buf_detach(&b);
		}
	return NULL;
}

/* The labels in the order made, joined (caller frees). */
static char *sequence(const struct instance *in, uint64_t seed)
{
	struct rules_cands c = { NULL, 0, 0, 0 };
	struct buf b = BUF_INIT;

	rules_all(in, &pools, seed, 0, &c);
	for (size_t i = 0; i < c.n; i++)
		buf_addf(&b, "%s ", c.v[i].label);
	rules_cands_release(&c);
	return b.data ? buf_detach(&b) : xstrdup("");
}

int main(void)
{
	struct rules_cands all[NRECORDS];
	struct err e = ERR_INIT;

	plan((int)(NRECORDS * 2 + NEXPECTS + 19));
	/* the dtypes tried are the templates' declarations (ferry/templates/registry.py) */
	if (libraries_load(getenv("FERRY_PYTHON") ? getenv("FERRY_PYTHON") : "", &e) < 0) {
		printf("Bail out! %s\n", e.msg);
		return 1;
	}
	rules_pools_init(&pools);
	if (record_parse(&norm, normalize, strlen(normalize), &e) < 0) {
		printf("Bail out! normalize: %s\n", e.msg);
		return 1;
	}
	for (size_t i = 0; i < NRECORDS; i++) {
		if (record_parse(&ins[i], records[i], strlen(records[i]), &e) < 0) {
			printf("Bail out! record %zu: %s\n", i, e.msg);
			return 1;
		}
		rules_pools_add(&pools, &ins[i]);
	}
	for (size_t i = 0; i < NRECORDS; i++) {
		char *l;
		int valid = 1;

		memset(&all[i], 0, sizeof(all[i]));
		rules_all(&ins[i], &pools, 1, 0, &all[i]);
		l = labels(&all[i]);
		is(l, all_labels[i], "%s: the labels", ins[i].op);
		free(l);
		/* Every candidate reads back as a record, and carries no "seen" of its parent. */
		for (size_t k = 0; k < all[i].n; k++) {
			struct buf b = BUF_INIT;
			struct instance back;

			record_write(&all[i].v[k].in, &b);
			if (record_parse(&back, b.data, b.len, &e) < 0 || strstr(b.data, "\"seen\"")) {
				valid = 0;
				err_release(&e);
			} else {
				record_release(&back);
			}
			buf_release(&b);
		}
		ok(valid && all[i].n > 0, "%s: %zu candidates, each a valid record", ins[i].op, all[i].n);
	}
	for (size_t i = 0; i < NEXPECTS; i++) {
		char *got = find(&all[expects[i].rec], expects[i].label);

		is(got, expects[i].json, "%s: %s", ins[expects[i].rec].op, expects[i].label);
		free(got);
	}

	/* The provenance the candidate keeps: its parent's source, not its count of sightings. */
	{
		struct buf b = BUF_INIT;

		record_write(&all[0].v[0].in, &b);
		ok(strstr(b.data, "\"source\":{\"suite\":\"t\"}") && !strstr(b.data, "seen"),
		   "a candidate keeps the parent's source and drops seen");
		buf_release(&b);
	}

	/* A torch module's weights in the new dtype ("+weights", its constructor's dtype=) only where
	 * it holds weights, which the harvest records as context.dtype: a MaxPool2d has none, and its
	 * five floating and complex targets are skipped, not made. */
	{
		const char *t = "{\"library\":\"torch\",\"op\":\"torch.nn.Conv2d\",\"kind\":\"module\","
			"\"context\":{\"dtype\":{\"dtype\":\"float32\"}},\"params\":{\"in_channels\":{\"int\":3},"
			"\"out_channels\":{\"int\":2},\"kernel_size\":{\"int\":3}},\"inputs\":[{\"tensor\":"
			"{\"dtype\":\"float32\",\"shape\":[1,3,8,8],\"range\":[-1,1]}}]}";
		struct instance in;
		struct rules_cands c = { NULL, 0, 0, 0 }, pool = { NULL, 0, 0, 0 };
		char *w, *x, *y;

		record_parse(&in, t, strlen(t), &e);
		rules_dtype(&in, 1, &c);
		w = find(&c, "dtype:float64+weights");
		is(w, "{\"context\":{\"dtype\":{\"dtype\":\"float64\"}},\"inputs\":[{\"tensor\":{\"dtype\":"
		   "\"float64\",\"range\":[-1,1],\"shape\":[1,3,8,8]}}],\"kind\":\"module\",\"library\":\"torch\","
		   "\"op\":\"torch.nn.Conv2d\",\"outputs\":[],\"params\":{\"dtype\":{\"dtype\":\"float64\"},"
		   "\"in_channels\":{\"int\":3},\"kernel_size\":{\"int\":3},\"out_channels\":{\"int\":2}}}",
		   "a Conv2d with weights: its weights in float64 too, in its constructor and context");
		ok(c.skipped == 0, "... nothing skipped (%zu)", c.skipped);
		rules_dtype(&ins[1], 1, &pool);
		x = find(&pool, "dtype:float64+weights");
		y = find(&pool, "dtype:float64");
		ok(!x && y && pool.skipped == 5, "a MaxPool2d without weights: no dtype= candidate, five skipped (%zu)",
		   pool.skipped);
		free(w);
		free(x);
		free(y);
		rules_cands_release(&c);
		rules_cands_release(&pool);
		record_release(&in);
	}

	/* A nan value has no integer: no integer dtype is made of it. */
	{
		const char *t = "{\"library\":\"torch\",\"op\":\"torch.neg\",\"kind\":\"function\","
			"\"inputs\":[{\"tensor\":{\"dtype\":\"float32\",\"shape\":[2],\"values\":[\"nan\",1]}}]}";
		struct instance in;
		struct rules_cands c = { NULL, 0, 0, 0 };
		char *l;

		record_parse(&in, t, strlen(t), &e);
		rules_dtype(&in, 1, &c);
		l = labels(&c);
		is(l, "dtype:bfloat16 dtype:bool dtype:complex128 dtype:complex64 dtype:float16 dtype:float64",
		   "nan: no integer dtype");
		free(l);
		rules_cands_release(&c);
		record_release(&in);
	}

	/* Determinism: the same seed, the same order; another seed, another order of the same set. */
	{
		char *a = sequence(&ins[1], 7), *b = sequence(&ins[1], 7), *c = sequence(&ins[1], 8);
		struct rules_cands x = { NULL, 0, 0, 0 }, y = { NULL, 0, 0, 0 };
		char *lx, *ly;

		is(a, b, "the same seed gives the same candidates in the same order");
		ok(strcmp(a, c) != 0, "another seed gives another order");
		/* The dtypes tried depend on no draw: the same set under any seed. */
		rules_dtype(&ins[1], 7, &x);
		rules_dtype(&ins[1], 8, &y);
		lx = labels(&x);
		ly = labels(&y);
		is(lx, ly, "the same dtypes under another seed");
		rules_cands_release(&x);
		rules_all(&ins[1], &pools, 7, 0, &x);
		/* Round-robin across dimensions: the first four are one of each. */
		ok(x.n > 4 && x.v[0].dim == RULES_DTYPE && x.v[1].dim == RULES_SHAPE && x.v[2].dim == RULES_PARAM,
		   "candidates alternate dtype, shape, param");
		free(a);
		free(b);
		free(c);
		free(lx);
		free(ly);
		rules_cands_release(&x);
		rules_cands_release(&y);
	}

	/* Pre-id: the identity without outputs. A candidate equal to a corpus instance but for its
	 * (stale) outputs has that instance's pre-id, so the engine does not try it. */
	{
		char p0[33], p1[33], pc[33];
		struct instance other;
		struct buf b = BUF_INIT;
		const char *t = "{\"library\":\"torch\",\"op\":\"torch.add\",\"kind\":\"function\",\"context\":{},"
			"\"params\":{\"alpha\":{\"int\":2}},\"inputs\":[{\"tensor\":{\"dtype\":\"float32\",\"shape\":[2,2],"
			"\"values\":[1.5,-2.5,300,0]}},{\"tensor\":{\"dtype\":\"float32\",\"shape\":[2,2],\"range\":[-9,9]}}],"
			"\"outputs\":[{\"tensor\":{\"dtype\":\"float64\",\"shape\":[9]}}]}";

		record_parse(&other, t, strlen(t), &e);
		vary_pre_id(&ins[0], p0);
		vary_pre_id(&other, p1);
		ok(!strcmp(p0, p1) && strcmp(ins[0].id, other.id), "other outputs: the same pre-id, another id");
		vary_pre_id(&all[0].v[0].in, pc);
		ok(strcmp(p0, pc) != 0, "a candidate's pre-id is not its parent's");
		/* rank:+1 then rank:-1 comes back to the parent: the same pre-id. */
		{
			struct rules_cands up = { NULL, 0, 0, 0 }, down = { NULL, 0, 0, 0 };
			struct instance *u = NULL;

			rules_shape(&ins[0], 1, &up);
			for (size_t i = 0; i < up.n; i++)
				if (!strcmp(up.v[i].label, "rank:+1"))
					u = &up.v[i].in;
			rules_shape(u, 1, &down);
			for (size_t i = 0; i < down.n; i++)
				if (!strcmp(down.v[i].label, "rank:-1"))
					vary_pre_id(&down.v[i].in, pc);
			is(pc, p0, "rank:+1 then rank:-1: the parent's pre-id");
			rules_cands_release(&up);
			rules_cands_release(&down);
		}
		record_release(&other);
		buf_release(&b);
	}

	/* Pools: a str parameter takes the values other instances of the op had. */
	{
		const char *t[] = {
			"{\"library\":\"torch\",\"op\":\"torch.nn.Pad\",\"kind\":\"module\",\"params\":{\"mode\":{\"str\":\"zeros\"}},"
			"\"inputs\":[{\"tensor\":{\"dtype\":\"float32\",\"shape\":[2]}}]}",
			"{\"library\":\"torch\",\"op\":\"torch.nn.Pad\",\"kind\":\"module\",\"params\":{\"mode\":{\"str\":\"reflect\"},"
			"\"value\":{\"float\":0.5}},\"inputs\":[{\"tensor\":{\"dtype\":\"float32\",\"shape\":[2]}}]}",
		};
		struct rules_pools p;
		struct instance a, b;
		struct rules_cands c = { NULL, 0, 0, 0 };
		char *l;

		rules_pools_init(&p);
		record_parse(&a, t[0], strlen(t[0]), &e);
		record_parse(&b, t[1], strlen(t[1]), &e);
		rules_pools_add(&p, &a);
		rules_pools_add(&p, &b);
		rules_param(&a, &p, 1, 0, &c);
		l = labels(&c);
		is(l, "param:+value=0.5 param:mode=reflect", "a str param's other values; a param the parent lacks");
		free(l);
		rules_cands_release(&c);
		record_release(&a);
		record_release(&b);
		rules_pools_release(&p);
	}

	/* A value in another Python type: normalize's eps=1e-12 as the int 1 (not 0: eps must stay
	 * positive), its int dim as a float and, being 1, as a bool, each scalar as a one-element list
	 * and tuple; ONNX's attributes, typed by the schema, have none. */
	{
		struct rules_cands c = { NULL, 0, 0, 0 };
		char *l, *eps;

		rules_type(&norm, 1, 0, &c);
		l = labels(&c);
		is(l, "param:dim=(1,) param:dim=1.0 param:dim=[1] param:dim=true param:eps=(1e-12,) param:eps=1 "
		   "param:eps=[1e-12] param:p=(2.0,) param:p=2 param:p=[2.0]", "normalize: its values in other types");
		eps = find(&c, "param:eps=1");
		ok(eps && strstr(eps, "\"eps\":{\"int\":1}") && strstr(eps, "\"p\":{\"float\":2}"),
		   "... eps=1 is the int 1, the rest the parent's");
		ok(c.n && c.v[0].dim == RULES_TYPE, "... in the type dimension");
		free(eps);
		free(l);
		rules_cands_release(&c);
		rules_type(&ins[6], 1, 0, &c);
		ok(c.n == 0, "ReduceSum (ONNX): no type variant");
		rules_cands_release(&c);
	}

	/* Extremes alone before pairs: each parent of an operator starts at another parameter's most
	 * extreme value (its nth rotates the schedule), and no pair comes before its two values alone. */
	{
		struct buf firsts = BUF_INIT;
		int after = 1;

		for (size_t nth = 0; nth < 6; nth++) {
			struct rules_cands c = { NULL, 0, 0, 0 };

			rules_param(&norm, NULL, 1, nth, &c);
			if (nth < 3)
				buf_addf(&firsts, "%s ", c.n ? c.v[0].label : "-");
			for (size_t k = 0; k < c.n; k++) {
				char one[256], two[256], *comma;
				int seen = 0;

				if (strncmp(c.v[k].label, "pair:", 5) || !(comma = strchr(c.v[k].label, ',')))
					continue;
				snprintf(one, sizeof(one), "param:%.*s", (int)(comma - c.v[k].label - 5), c.v[k].label + 5);
				snprintf(two, sizeof(two), "param:%s", comma + 1);
				for (size_t m = 0; m < k; m++)
					seen += !strcmp(c.v[m].label, one) + !strcmp(c.v[m].label, two);
				after &= seen == 2;
			}
			rules_cands_release(&c);
		}
		ok(firsts.data && strstr(firsts.data, "param:p=1e30 ") && strstr(firsts.data, "param:eps=1e30 ") &&
		   strstr(firsts.data, "param:dim=1024 "), "the first three parents start at each parameter's extreme (%s)",
		   firsts.data ? firsts.data : "");
		ok(after, "every pair comes after its two values alone");
		buf_release(&firsts);
	}

	record_release(&norm);
	for (size_t i = 0; i < NRECORDS; i++) {
		rules_cands_release(&all[i]);
		record_release(&ins[i]);
	}
	rules_pools_release(&pools);
	return done();
}
