/* child.c: the child's side of one file's parse (ferry harvest-cpp-child): the file parsed in this
 * process, and what it gives written to the channel, one line per event (pool/protocol.h). */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

#include "counts.h"
#include "cpp-int.h"
#include "protocol.h"

int cpp_mode_parse(const char *name, enum cpp_mode *mode)
{
	if (!strcmp(name, "onnx"))
		*mode = CPP_ONNX;
	else if (!strcmp(name, "torch"))
		*mode = CPP_TORCH;
	else if (!strcmp(name, "count"))
		*mode = CPP_COUNT;
	else
		return -1;
	return 0;
}

#ifdef HAVE_LIBCLANG

/* The child's hooks: each event one line of the channel (pool/protocol.h). */
static void channel_json(FILE *fp, const char *word, cJSON *v)
{
	char *text = cJSON_PrintUnformatted(v);

	fprintf(fp, "%s %s\n", word, text ? text : "null");
	cJSON_free(text);
	cJSON_Delete(v);
}

static int child_emit(void *ctx, const char *json, size_t len, struct err *e)
{
	FILE *fp = ctx;

	fputs(PROTO_CPP_EMIT " ", fp);
	fwrite(json, 1, len, fp);
	if (fputc('\n', fp) == EOF)
		return err_errno(e, EXIT_ENV, "cannot write to ferry harvest");
	return 0;
}

static void child_count(void *ctx, const char *key, long n)
{
	cJSON *a = cJSON_CreateArray();

	cJSON_AddItemToArray(a, cJSON_CreateNumber((double)n));
	cJSON_AddItemToArray(a, cJSON_CreateString(key));
	channel_json(ctx, PROTO_CPP_COUNT, a);
}

static void child_warn(void *ctx, const char *msg)
{
	channel_json(ctx, PROTO_CPP_WARN, cJSON_CreateString(msg));
}

static void child_skip(void *ctx, const char *file, const char *why)
{
	(void)file;
	channel_json(ctx, PROTO_CPP_SKIP, cJSON_CreateString(why));
}

int cpp_child_run(int fd, enum cpp_mode mode, const char *file, const char *stub, const struct cpp_opts *o,
		  struct err *e)
{
	FILE *fp = fdopen(fd, "w");
	struct cpp_opts co = *o;
	struct counts counts;
	int rc;

	if (!fp)
		return err_errno(e, EXIT_ENV, "cannot open the channel to ferry harvest");
	co.ctx = fp;
	co.emit = child_emit;
	co.count = child_count;
	co.warn = child_warn;
	co.skip = child_skip;
	co.progress = NULL;
	counts_init(&counts);
	rc = cpp_harvest_here(file, stub, &co, mode == CPP_COUNT ? &counts : NULL,
			      mode == CPP_ONNX ? cpp_onnx_run : mode == CPP_COUNT ? cpp_count_run : NULL, e);
	if (rc == 0) {
		for (size_t i = 0; i < counts_size(&counts); i++) {
			cJSON *a = cJSON_CreateArray();

			cJSON_AddItemToArray(a, cJSON_CreateString(counts_name(&counts, i)));
			cJSON_AddItemToArray(a, cJSON_CreateNumber((double)counts_value(&counts, i)));
			channel_json(fp, PROTO_CPP_OP, a);
		}
		fputs(PROTO_CPP_DONE "\n", fp);
	} else {
		cJSON *a = cJSON_CreateArray();

		cJSON_AddItemToArray(a, cJSON_CreateNumber(e->code ? (double)e->code : EXIT_ENV));
		cJSON_AddItemToArray(a, cJSON_CreateString(e->msg));
		channel_json(fp, PROTO_CPP_FAIL, a);
	}
	if ((fflush(fp) != 0 || ferror(fp)) && rc == 0)
		rc = err_errno(e, EXIT_ENV, "cannot write to ferry harvest");
	fclose(fp);
	counts_release(&counts);
	return rc;
}

#else

int cpp_child_run(int fd, enum cpp_mode mode, const char *file, const char *stub, const struct cpp_opts *o,
		  struct err *e)
{
	(void)fd, (void)mode, (void)file, (void)stub, (void)o;
	return err_set(e, EXIT_ENV, "ferry was built without libclang (configure --without-libclang)");
}
#endif
