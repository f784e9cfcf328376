// SPDX-License-Identifier: MIT
/*
 * config - the environment table: bad values fail pgas_init with a message
 * naming the variable; good ones take effect; PGAS_VERBOSEENV's table shows
 * them.  Runs as a one-rank job started without pgasrun.
 */
#define _GNU_SOURCE
#include "tap.h"

static void expect_init_fails(const char *var, const char *val, const char *words)
{
	int argc = 0;
	char **argv = NULL;
	int rc;

	setenv(var, val, 1);
	rc = pgas_init(&argc, &argv);
	T_CHECK(rc == PGAS_ERR_INVAL || (rc == PGAS_ERR_SYS && !strcmp(var, "PGAS_CONDUIT")),
		"%s=%s: pgas_init returned %d", var, val, rc);
	T_CHECK(strstr(pgas_last_error(), var) || strstr(pgas_last_error(), words),
		"%s=%s: message \"%s\"", var, val, pgas_last_error());
	T_CHECK(strstr(pgas_last_error(), words), "%s=%s: message \"%s\" lacks \"%s\"", var, val,
		pgas_last_error(), words);
	unsetenv(var);
}

int main(int argc, char **argv)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	unsetenv("PGAS_RANK");
	unsetenv("PGAS_NRANKS");
	unsetenv("PGAS_BOOT_FD");
	expect_init_fails("PGAS_MBOX_SLOTS", "100", "powers of two");
	expect_init_fails("PGAS_MBOX_SLOTS", "8", "from 16 to 32768");
	expect_init_fails("PGAS_WAIT_MODE", "fast", "auto|spin|yield|block");
	expect_init_fails("PGAS_SEGMENT_SIZE", "12Q", "PGAS_SEGMENT_SIZE=12Q");
	expect_init_fails("PGAS_SPIN_LIMIT", "-1", "PGAS_SPIN_LIMIT=-1");
	setenv("PGAS_DEVICE", "/nonexistent/pgas0", 1);
	expect_init_fails("PGAS_CONDUIT", "kmod", "/nonexistent/pgas0");
	unsetenv("PGAS_DEVICE");
	expect_init_fails("PGAS_DEVICE", "pgas0", "absolute path");
	setenv("PGAS_MBOX_SLOTS", "16", 1);
	expect_init_fails("PGAS_AM_PACKET_MAX", "4000", "half a ring");
	unsetenv("PGAS_MBOX_SLOTS");
	setenv("PGAS_RANK", "1", 1);
	setenv("PGAS_NRANKS", "2", 1);
	expect_init_fails("PGAS_BOOT_FD", "x", "pgasrun");
	unsetenv("PGAS_RANK");
	unsetenv("PGAS_NRANKS");

	setenv("PGAS_SEGMENT_SIZE", "1M", 1);
	setenv("PGAS_MAX_MEDIUM", "600", 1);
	T_EQ(pgas_init(&argc, &argv), 0);
	T_EQ(pgas_nranks(), 1);
	T_EQ(pgas_rank(), 0);
	T_EQ(pgas_attach(NULL, 0, 0), 0);
	T_EQ(pgas_segment_size(0), 1 << 20);
	T_EQ(pgas_am_max_medium(), 600);
	T_EQ(pgas_am_max_long(0), 1 << 20);
	f = open_memstream(&text, &len);
	pgas_print_config(f);
	fclose(f);
	T_CHECK(strstr(text, "PGAS_SEGMENT_SIZE") && strstr(text, "1048576") &&
		strstr(text, "(set)") && strstr(text, "PGAS_WAIT_MODE"),
		"config table:\n%s", text);
	free(text);
	t_case("env table: bad values name the variable; 1M segment and 600 B medium take effect");
	t_done();
}
