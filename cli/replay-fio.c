/* SPDX-License-Identifier: MIT */
/* iotape replay --fio-client: a trace replayed across hosts through fio's client/server mode. */
#include "cli/cli.h"
#include "common/stop.h"

#include <getopt.h> /* optarg, optind */
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/replay.h"
#include "fioclient/fioclient.h"

struct fopts {
	struct fc_opts o;
	struct fc_slot *slots;
	unsigned nslots;
	struct fc_map *maps;
	unsigned nmaps;
	char **map_args; /* --map SRCDEV=SLOT, resolved once every slot is known */
	unsigned nmap_args;
	bool json, allow_writes, writes_as_reads, force;
	double speed;
	char *tmpdir;
};

static void fopts_release(struct fopts *f)
{
	for (unsigned i = 0; i < f->nslots; i++)
		fc_slot_release(&f->slots[i]);
	free(f->slots);
	free(f->maps);
	free(f->map_args);
	free(f->tmpdir);
}

/* --map SRCDEV=SLOT: SLOT a --fio-client's number (from 1) or its HOST[:PORT] if unique. */
static int resolve_map(struct fopts *f, char *arg)
{
	char *eq = strchr(arg, '=');
	struct fc_map *m;
	struct iot_err e;
	unsigned slot = UINT_MAX, found = 0;
	uint32_t dev;
	char *end;
	unsigned long n;
	int ret;

	if (!eq || eq == arg || !eq[1])
		return usage_error("--map: '%s' is not SRCDEV=HOST[:PORT] (or =N)", arg);
	*eq = 0;
	ret = rp_parse_dev(arg, &dev, &e);
	*eq = '=';
	if (ret)
		return usage_error("--map: %s", e.msg);
	m = realloc(f->maps, (f->nmaps + 1) * sizeof(*m));
	if (!m)
		return error("out of memory"), EXIT_SYSTEM;
	f->maps = m;
	m[f->nmaps].dev = dev;
	n = strtoul(eq + 1, &end, 10);
	if (!*end && n >= 1 && n <= f->nslots) {
		slot = (unsigned)n - 1;
		found = 1;
	}
	for (unsigned i = 0; !found && i < f->nslots; i++) {
		char name[300];

		fc_slot_name(&f->slots[i], name, sizeof(name));
		if (!strcmp(eq + 1, name) || !strcmp(eq + 1, f->slots[i].host)) {
			slot = i;
			found++;
		}
	}
	if (!found)
		return usage_error("--map: '%s' is no --fio-client (HOST[:PORT] or its number)",
		                   eq + 1);
	if (found > 1)
		return usage_error(
		    "--map: several --fio-client entries are '%s': give HOST:PORT or "
		    "the entry's number",
		    eq + 1);
	m[f->nmaps++].slot = slot;
	return 0;
}

/* --fio-client SLOT: one more fio server. An exit code. */
static int add_slot(struct fopts *f, const char *arg)
{
	struct fc_slot s, *v;
	struct iot_err e;

	if (fc_slot_parse(&s, arg, &e))
		return usage_error("--fio-client: %s", e.msg);
	v = realloc(f->slots, (f->nslots + 1) * sizeof(*v));
	if (!v) {
		fc_slot_release(&s);
		return error("out of memory"), EXIT_SYSTEM;
	}
	f->slots = v;
	v[f->nslots++] = s;
	return EXIT_OK;
}

/* Option c of a replay through fio into f. An exit code. */
static int parse_opt(struct fopts *f, int c, char **argv)
{
	struct fc_opts *o = &f->o;
	const struct replay_shared_opts shared = {&o->xo.max_iodepth, &f->speed, &o->xo.offset,
	                                          &f->force, &f->json};
	unsigned long long u;
	struct iot_err e;
	int ret;

	if ((ret = replay_shared_opt(&shared, c)) >= 0) {
		/* fio's replay_time_scale: a percentage of the log's delays' inverse */
		if (ret == EXIT_OK && c == O_SPEED && !(f->speed >= 0.01))
			return usage_error("--speed: '%s' is not a factor in 0.01..1000000",
			                   optarg);
		if (c == O_SPEED)
			o->xo.time_scale = (unsigned)(f->speed * 100 + 0.5);
		return ret;
	}
	switch (c) {
	case 'm': {
		char **v = realloc(f->map_args, (f->nmap_args + 1) * sizeof(*v));

		if (!v)
			return error("out of memory"), EXIT_SYSTEM;
		f->map_args = v;
		v[f->nmap_args++] = optarg;
		break;
	}
	case 'e':
		/* the replay's engine names, as fio's ioengines */
		if (!strcmp(optarg, "io_uring") || !strcmp(optarg, "psync") ||
		    !strcmp(optarg, "null") || !strcmp(optarg, "libaio"))
			o->xo.ioengine = optarg;
		else if (!strcmp(optarg, "sync") || !strcmp(optarg, "fallback"))
			o->xo.ioengine = "psync";
		else
			return usage_error("--engine: '%s' is not libaio, io_uring, psync or "
			                   "null (fio's ioengines)",
			                   optarg);
		break;
	case O_FROM:
		if (strcmp(optarg, "issue") && strcmp(optarg, "queue") && strcmp(optarg, "D") &&
		    strcmp(optarg, "Q"))
			return bad_value(O_FROM, optarg);
		o->xo.from_queue = !strcmp(optarg, "queue") || !strcmp(optarg, "Q");
		break;
	case O_TIMING:
		if (strcmp(optarg, "original") && strcmp(optarg, "afap"))
			return bad_value(O_TIMING, optarg);
		o->xo.no_stall = !strcmp(optarg, "afap");
		break;
	case O_BUFFERED:
		o->xo.buffered = true;
		break;
	case O_ALLOW_WRITES:
		f->allow_writes = true;
		break;
	case O_WRITES_AS_READS:
		f->writes_as_reads = true;
		break;
	case O_NO_PROGRESS:
		break;
	case O_FIO_CLIENT:
		return add_slot(f, optarg);
	case O_FIO_HOSTS:
		if ((ret = fc_hosts_file(optarg, &f->slots, &f->nslots, &f->maps, &f->nmaps,
		                         rp_parse_dev, &e)))
			return error("--fio-hosts: %s", e.msg), exit_code_for(ret);
		break;
	case O_FIO_DIR:
		o->dir = optarg;
		break;
	case O_FIO_REMOTE_DIR:
		o->remote_dir = optarg;
		break;
	case O_FIO_BIN:
		o->fio = optarg;
		break;
	case O_FIO_TIMEOUT:
		if (parse_duration_ns("--fio-timeout", optarg, &u))
			return EXIT_USAGE;
		o->timeout_ns = u ? u : UINT64_MAX;
		break;
	case '?':
		return bad_option(argv);
	default: /* one of replay's options on this machine (doc_replay) */
		return usage_error("'%s' is not an option of a replay through fio "
		                   "(--fio-client, --fio-hosts)",
		                   opt_name(c));
	}
	return EXIT_OK;
}

static int parse(struct fopts *f, int argc, char **argv)
{
	struct fc_opts *o = &f->o;
	int c, ret;

	optind = 1;
	while ((c = cli_getopt(argc, argv, &doc_replay)) != -1)
		if ((ret = parse_opt(f, c, argv)) != EXIT_OK)
			return ret;
	if (optind + 1 != argc)
		return usage_error(optind == argc ? "missing TRACE" : "one TRACE at a time");
	o->run = argv[optind];
	if (f->writes_as_reads && f->allow_writes)
		return usage_error("--writes-as-reads and --allow-writes exclude each other");
	o->xo.writes = f->allow_writes      ? EXPORT_WRITES
	               : f->writes_as_reads ? EXPORT_WRITES_AS_READS
	                                    : EXPORT_WRITES_SKIP;
	for (unsigned i = 0; i < f->nmap_args; i++)
		if ((ret = resolve_map(f, f->map_args[i])))
			return ret;
	o->slots = f->slots;
	o->nslots = f->nslots;
	o->maps = f->maps;
	o->nmaps = f->nmaps;
	o->xo.version = 3;
	return 0;
}

/* Targets on this machine get the local replay's safety checks (docs/replay.md, Safety). */
static int check_local_targets(const struct fopts *f)
{
	struct replay_opts ro;
	struct bt_reader *rd;
	struct iot_err e;
	int ret, rc = 0;

	memset(&ro, 0, sizeof(ro));
	ro.force = f->force;
	ro.allow_writes = f->allow_writes;
	/* the trace's own files are never a target */
	if ((ret = bt_reader_open(&rd, f->o.run, &e)))
		return error("%s", e.msg), exit_code_for(ret);
	ret = replay_input_ids(rd, &ro);
	bt_reader_free(rd);
	if (ret)
		return error("out of memory"), EXIT_SYSTEM;
	for (unsigned i = 0; i < f->nslots && !rc; i++) {
		const struct fc_slot *s = &f->slots[i];

		if (!fc_host_is_local(s->host) || access(s->target, F_OK))
			continue;
		if ((ret = rp_target_check(s->target, &ro, &e)))
			rc = (error("%s", e.msg), exit_code_for(ret));
	}
	free((void *)ro.inputs);
	return rc;
}

int replay_fio(int argc, char **argv)
{
	struct fopts f;
	struct fc_result res;
	struct iot_err e;
	int rc, ret;

	memset(&f, 0, sizeof(f));
	if ((rc = parse(&f, argc, argv)) || (rc = check_local_targets(&f)))
		goto out;
	if (!f.o.dir) {
		f.tmpdir = strdup("/tmp/iotape-fio.XXXXXX");
		if (!f.tmpdir || !mkdtemp(f.tmpdir)) {
			rc = (error("cannot make a directory for the iologs: %s", strerror(errno)),
			      EXIT_SYSTEM);
			goto out;
		}
		f.o.dir = f.tmpdir;
	}
	iot_stop_catch(0);
	f.o.stop = &iot_stop_sig;
	ret = fc_run(&f.o, &res, &e);
	if (ret) {
		rc = (error("%s", e.msg), exit_code_for(ret));
		fc_result_release(&res);
		goto out;
	}
	if (f.json) {
		json_t *j = fc_result_json(&f.o, &res);
		char *s = j ? json_dumps(j, JSON_INDENT(1)) : NULL;

		if (!s)
			rc = (error("out of memory"), EXIT_SYSTEM);
		else
			printf("%s\n", s);
		free(s);
		json_decref(j);
	} else {
		fc_result_text(stdout, &f.o, &res);
	}
	rc = EXIT_OK;
	for (unsigned d = 0; d < res.ndevs; d++)
		if (!res.devs[d].fio.have || res.devs[d].fio.error)
			rc = EXIT_SYSTEM;
	if (rc == EXIT_SYSTEM)
		error("fio did not replay every device without error%s%s (see %s)",
		      *res.fio_msg ? ": " : "", res.fio_msg, res.fio_log);
	if (res.fio_status && !res.stopped) {
		error("fio exited with status %d (see %s)", res.fio_status, res.fio_log);
		rc = EXIT_SYSTEM;
	}
	if (res.stopped)
		rc = 128 + (int)iot_stop_sig;
	fc_result_release(&res);
out:
	fopts_release(&f);
	return rc;
}
