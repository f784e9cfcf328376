# libpgas + pgas.ko top-level build.  See README.md.
#
#   make                 library (static + shared), tools, examples, tests, benchmarks,
#                        the applications (apps/: NAS FT where FFTW is, stencil, isort)
#   make check           the whole test suite (every tier that exists)
#   make check-native    native tier: libpgas over the shm conduit, + sanitizer builds
#   make check-multihost PMIx boot (mpirun) and the namespace bed of 2-4 hosts
#   make bench           benchmarks against the physical limit and the peers
#   make bench-multihost libpgas across the namespace bed vs raw libfabric and the peers (root)
#   make demo            installs what is missing, builds and runs the demo job
#   make install         PREFIX=/usr/local DESTDIR=
#
# SAN=asan or SAN=tsan builds everything with sanitizers into build/$(SAN).

CC      ?= cc
PREFIX  ?= /usr/local
DESTDIR ?=
SAN     ?=

ifneq ($(STATIC),)
# Static binaries for the VM tier's initramfs.
B := build/static
SANFLAGS := -static
else ifeq ($(SAN),)
B := build
SANFLAGS :=
else ifeq ($(SAN),asan)
B := build/asan
SANFLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
else ifeq ($(SAN),tsan)
B := build/tsan
SANFLAGS := -fsanitize=thread -fno-omit-frame-pointer
else
$(error SAN must be empty, asan or tsan)
endif

OPT      ?= -O2
CFLAGS   := -std=c11 $(OPT) -g -Wall -Wextra -Werror $(SANFLAGS) $(EXTRA_CFLAGS)
# The library's objects serve the shared library too; programs stay PIE.
LIBFLAGS := -fPIC
LDFLAGS  := $(SANFLAGS)

# Include paths show the layers (docs/design-threads-endpoints.md, 5.1).
# Everything sees the installed API (libpgas/include, uapi/); a file sees
# another layer's folder only where it includes from it today (core's
# internal.h includes conduit.h, hence -Iconduit with it).
CPPFLAGS := -Ilibpgas/include -Iuapi
I_BOOT   := -Ilibpgas/boot
I_CORE   := -Ilibpgas/core -Ilibpgas/boot -Iconduit

# Every conduit brings its build fragment: the sources it adds to the
# library (CONDUIT_SRCS), PGAS_WITH_<NAME> for conduits.c (CONDUIT_DEFS),
# what programs must link with (CONDUIT_LIBS), its own flags.  A conduit
# whose dependencies are missing leaves itself out (conduit/ofi/conduit.mk).
CONDUIT_SRCS :=
CONDUIT_DEFS :=
CONDUIT_LIBS :=
CONDUIT_MKS  := $(sort $(wildcard conduit/*/conduit.mk))
# The fragments define rules: plain "make" must still mean "all".
.DEFAULT_GOAL := all
include $(CONDUIT_MKS)

# (In the link order of before the folders: the same library.)
LIB_SRCS := libpgas/core/init.c libpgas/boot/env.c libpgas/boot/error.c \
            libpgas/core/am.c libpgas/core/rma.c libpgas/core/rma_ref.c libpgas/core/barrier.c \
            libpgas/core/wait.c libpgas/core/hsl.c libpgas/core/layer.c libpgas/core/thread.c libpgas/core/progress.c libpgas/core/atomic.c libpgas/core/signal.c \
            libpgas/core/vis.c libpgas/core/ep.c libpgas/core/region.c libpgas/core/ctl.c libpgas/core/copy.c libpgas/core/peers.c libpgas/core/stats.c \
            libpgas/coll/coll.c libpgas/coll/coll_alg.c libpgas/coll/coll_reduce.c \
            libpgas/coll/coll_ref.c libpgas/coll/coll_light.c \
            libpgas/coll/coll_tune.c libpgas/coll/team.c libpgas/layers.c \
            conduit/conduits.c conduit/maps.c libpgas/boot/bootstrap.c $(CONDUIT_SRCS)
LIB_OBJS := $(LIB_SRCS:%.c=$(B)/obj/%.o)
HEADERS  := libpgas/include/pgas.h libpgas/include/pgas_fast.h libpgas/include/pgas_coll.h \
            libpgas/include/pgas_atomic.h libpgas/include/pgas_signal.h libpgas/include/pgas_vis.h \
            libpgas/boot/bootstrap.h libpgas/boot/boot.h libpgas/core/internal.h libpgas/core/layer.h \
            libpgas/coll/coll.h \
            uapi/pgas_abi.h conduit/conduit.h
PUBLIC_HEADERS := libpgas/include/pgas.h libpgas/include/pgas_fast.h libpgas/include/pgas_atomic.h libpgas/include/pgas_signal.h \
                  libpgas/include/pgas_vis.h \
                  libpgas/include/pgas_coll.h uapi/pgas_abi.h

# Who reaches into which layer today.  The boot and conduit files that
# include core's internal.h are edges step 4 cuts.
$(B)/obj/libpgas/boot/%.o:     CPPFLAGS += $(I_BOOT) -Iconduit
$(B)/obj/libpgas/core/%.o:     CPPFLAGS += $(I_CORE) $(I_BOOT)
$(B)/obj/libpgas/coll/%.o:     CPPFLAGS += $(I_CORE)
$(B)/obj/libpgas/layers.o:     CPPFLAGS += $(I_CORE) -Ilibpgas/coll
$(B)/obj/conduit/conduits.o:   CPPFLAGS += $(I_BOOT) -Iconduit $(CONDUIT_DEFS)
# Which conduits are in is decided by the fragments: conduits.o follows them.
$(B)/obj/conduit/conduits.o:   $(CONDUIT_MKS) Makefile

# The OpenSHMEM layer (shmem/, docs/shmem.md): libshmem.a above libpgas,
# using libpgas's public API only (no internal include path).
SHMEM_SRCS := $(wildcard shmem/*.c)
SHMEM_OBJS := $(SHMEM_SRCS:%.c=$(B)/obj/%.o)
# The same objects with the profiling interface's names (pshmem_X, X weak):
# the archive and the shared library are made of these.
SHMEM_POBJS := $(SHMEM_SRCS:shmem/%.c=$(B)/obj/pshmem/%.o)
SHMEM_HDRS := shmem/include/shmem.h shmem/include/shmemx.h shmem/shmem_internal.h
SHMEM_TEST_SRCS := $(wildcard selftests/shmem/*.c)
SHMEM_TESTS := $(SHMEM_TEST_SRCS:selftests/shmem/%.c=$(B)/tests/shmem/%)

TEST_SRCS  := $(wildcard selftests/libpgas/*.c)
TESTS      := $(TEST_SRCS:selftests/libpgas/%.c=$(B)/tests/%)
EX_SRCS    := $(wildcard examples/*.c)
EXAMPLES   := $(EX_SRCS:examples/%.c=$(B)/examples/%)
BENCH_SRCS := $(wildcard bench/*.c)
BENCHES    := $(BENCH_SRCS:bench/%.c=$(B)/bench/%)

# Optional: the boot layer over PMIx (libpgas/boot/pmix.c, bootpmix.h) where
# pkg-config finds pmix (libpmix-dev); PMIX=0 or STATIC=1 leaves it out.
# libpmix is opened at run time (dlopen): programs link as before.
ifeq ($(STATIC)$(filter 0 no,$(PMIX)),)
PMIX_FOUND := $(shell pkg-config --exists pmix 2>/dev/null && echo yes)
endif
HEADERS += libpgas/boot/bootpmix.h
# The boot layer's own test (scripts/check-multihost.sh) includes bootstrap.h.
$(B)/tests/boot_allgather: CPPFLAGS += $(I_BOOT)
ifeq ($(PMIX_FOUND),yes)
PMIX_LIBDIR := $(shell pkg-config --variable=libdir pmix 2>/dev/null)
LIB_SRCS += libpgas/boot/pmix.c
LIB_OBJS += $(B)/obj/libpgas/boot/pmix.o
$(B)/obj/libpgas/boot/%.o: CPPFLAGS += -DPGAS_HAVE_PMIX
$(B)/obj/libpgas/boot/pmix.o: CPPFLAGS += $(shell pkg-config --cflags pmix 2>/dev/null) \
	-DPGAS_PMIX_LIB='"$(PMIX_LIBDIR)/libpmix.so.2"'
endif

KVER ?= $(shell ls /lib/modules 2>/dev/null | sort -V | tail -n 1)
KDIR ?= /lib/modules/$(KVER)/build
VMTEST_SRCS := $(wildcard selftests/kmod/*.c)
VMTESTS     := $(VMTEST_SRCS:selftests/kmod/%.c=$(B)/tests/%)

.PHONY: man shmem all lib tools tests examples benches apps check check-native check-vm check-kunit check-debugvm \
        check-multihost \
        bench demo deps install clean modules modules_install install-kmod vmtests

all: lib tools examples tests benches shmem man apps

ifeq ($(STATIC),)
lib: $(B)/lib/libpgas.a $(B)/lib/libpgas.so
SHMEM_SO := $(B)/lib/libshmem.so
# oshcc links the shared libraries unless told -static.
OSH_LINK := shared
else
lib: $(B)/lib/libpgas.a
SHMEM_SO :=
OSH_LINK := static
endif
tools: $(B)/bin/pgasrun $(B)/bin/pgasctl $(B)/bin/pgas-tune
tests: $(TESTS)
shmem: $(B)/lib/libshmem.a $(SHMEM_SO) $(B)/bin/oshcc $(B)/bin/oshc++ $(B)/bin/oshrun \
	$(B)/bin/pgasrun $(SHMEM_TESTS)
examples: $(EXAMPLES)
benches: $(BENCHES) $(B)/bench/shmem_icount

$(B)/obj/%.o: %.c $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LIBFLAGS) -c -o $@ $<

$(B)/lib/libpgas.a: $(LIB_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

# Exports what the installed headers name, nothing else (scripts/export-map.sh).
$(B)/lib/libpgas.map: $(LIB_OBJS) scripts/export-map.sh
	@mkdir -p $(dir $@)
	CC="$(CC)" scripts/export-map.sh $(LIB_OBJS) >$@

$(B)/lib/libpgas.so: $(LIB_OBJS) $(B)/lib/libpgas.map
	@mkdir -p $(dir $@)
	$(CC) -shared -Wl,-soname,libpgas.so.0 -Wl,--version-script=$(B)/lib/libpgas.map \
		$(LDFLAGS) -o $@ $(LIB_OBJS) $(CONDUIT_LIBS)

# -fno-lto: the profiling interface renames the routines in the objects'
# machine code (scripts/pshmem-alias.sh); an LTO link would take the
# untouched bytecode instead.
$(B)/obj/shmem/%.o: shmem/%.c $(SHMEM_HDRS) $(PUBLIC_HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Ishmem/include $(CFLAGS) $(LIBFLAGS) -fno-lto -c -o $@ $<

$(SHMEM_POBJS) $(B)/obj/pshmem/libshmem.map $(B)/obj/pshmem/pshmem.h &: $(SHMEM_OBJS) scripts/pshmem-alias.sh
	scripts/pshmem-alias.sh $(B)/obj/pshmem $(SHMEM_OBJS)

$(B)/lib/libshmem.a: $(SHMEM_POBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

# The sonames' links beside the files, so that programs linked in the tree
# (oshcc's rpath) find them; libshmem finds libpgas beside itself
# ($ORIGIN), whether or not the program names libpgas.
$(B)/lib/libshmem.so: $(SHMEM_POBJS) $(B)/obj/pshmem/libshmem.map $(B)/lib/libpgas.so
	$(CC) -shared -Wl,-soname,libshmem.so.0 -Wl,--version-script=$(B)/obj/pshmem/libshmem.map \
		-Wl,-Bsymbolic-functions -Wl,--no-undefined -Wl,-rpath,'$$ORIGIN' \
		$(LDFLAGS) -o $@ $(SHMEM_POBJS) \
		-L$(B)/lib -lpgas $(CONDUIT_LIBS)
	ln -sf libshmem.so $(B)/lib/libshmem.so.0
	ln -sf libpgas.so $(B)/lib/libpgas.so.0

# oshcc of the build tree: this checkout's headers and archives.
$(B)/bin/oshcc: shmem/oshcc.in Makefile $(CONDUIT_MKS)
	@mkdir -p $(dir $@)
	sed -e 's|@CC@|$(CC)|' -e 's|@OSH_LINK@|$(OSH_LINK)|' \
	    -e 's|@OSH_CFLAGS@|-I$(CURDIR)/shmem/include -I$(CURDIR)/$(B)/obj/pshmem -I$(CURDIR)/libpgas/include -I$(CURDIR)/uapi $(SANFLAGS)|' \
	    -e 's|@OSH_LIBS@|$(CURDIR)/$(B)/lib/libshmem.a $(CURDIR)/$(B)/lib/libpgas.a $(CONDUIT_LIBS)|' \
	    -e 's|@OSH_SHARED_LIBS@|-L$(CURDIR)/$(B)/lib -Wl,-rpath,$(CURDIR)/$(B)/lib -lshmem -lpgas|' $< >$@
	chmod 755 $@

$(B)/bin/oshrun: shmem/oshrun
	@mkdir -p $(dir $@)
	install -m 755 $< $@

$(B)/bin/oshc++: shmem/oshc++
	@mkdir -p $(dir $@)
	install -m 755 $< $@

# The OpenSHMEM tests build with oshcc, as a user's program would (the
# shared libraries, where the build makes them).
$(B)/tests/shmem/%: selftests/shmem/%.c selftests/shmem/stap.h $(SHMEM_HDRS) $(PUBLIC_HEADERS) $(B)/bin/oshcc \
		$(B)/lib/libshmem.a $(B)/lib/libpgas.a $(SHMEM_SO)
	@mkdir -p $(dir $@)
	$(B)/bin/oshcc $(CFLAGS) -o $@ $<

# The OpenSHMEM layer's instruction counts (scripts/icount.sh), built as a
# user's program, with the archives (as the counts were first taken).
$(B)/bench/shmem_icount: bench/shmem/icount.c $(SHMEM_HDRS) $(PUBLIC_HEADERS) $(B)/bin/oshcc \
		$(B)/lib/libshmem.a $(B)/lib/libpgas.a
	@mkdir -p $(dir $@)
	OSHCC_LINK=archives $(B)/bin/oshcc $(CFLAGS) -o $@ $<

# The applications (apps/, docs/apps.md): each of apps/NAME/NAME.c over
# libpgas (NAME), our OpenSHMEM (NAME-shmem, built with oshcc as a user's
# program) and MPI (NAME-mpi, in the plain build where mpicc is), the
# library's calls behind apps/common/comm.h.  NAS FT needs FFTW
# (libfftw3-dev: scripts/deps.sh test) and is left out without it.
FFTW_FOUND := $(shell pkg-config --exists fftw3 2>/dev/null && echo yes)
# Open MPI's where there is one: the tiers launch ft-mpi with its mpirun
# (MPICH's mpicc may be the system's default).
MPICC      ?= $(if $(shell command -v mpicc.openmpi 2>/dev/null),mpicc.openmpi,mpicc)
MPI_FOUND  := $(if $(SAN)$(STATIC),,$(shell command -v $(MPICC) 2>/dev/null))
APP_NAMES  := stencil isort $(if $(FFTW_FOUND),ft)
APP_LIBS_ft := $(shell pkg-config --libs fftw3 2>/dev/null)
APP_COMMON := apps/common/comm.h apps/common/npb_rand.h apps/common/clock.h
APPS := $(foreach a,$(APP_NAMES),$(B)/apps/$(a) $(B)/apps/$(a)-shmem $(if $(MPI_FOUND),$(B)/apps/$(a)-mpi))
apps: $(APPS)

define APP_RULES
$(B)/apps/$(1): apps/$(1)/$(1).c $(APP_COMMON) apps/common/comm_pgas.c $(B)/lib/libpgas.a
	@mkdir -p $$(dir $$@)
	$$(CC) $$(CPPFLAGS) $$(CFLAGS) $$(LDFLAGS) -o $$@ apps/$(1)/$(1).c apps/common/comm_pgas.c \
		$$(B)/lib/libpgas.a $$(CONDUIT_LIBS) $$(APP_LIBS_$(1)) -lm

$(B)/apps/$(1)-shmem: apps/$(1)/$(1).c $(APP_COMMON) apps/common/comm_shmem.c $$(SHMEM_HDRS) \
		$$(B)/bin/oshcc $$(B)/lib/libshmem.a $$(B)/lib/libpgas.a $$(SHMEM_SO)
	@mkdir -p $$(dir $$@)
	$$(B)/bin/oshcc $$(CFLAGS) -DCOMM_SHMEM_NAME='"OpenSHMEM (libpgas)"' -o $$@ \
		apps/$(1)/$(1).c apps/common/comm_shmem.c $$(APP_LIBS_$(1)) -lm

$(B)/apps/$(1)-mpi: apps/$(1)/$(1).c $(APP_COMMON) apps/common/comm_mpi.c
	@mkdir -p $$(dir $$@)
	$$(MPICC) $$(CFLAGS) -o $$@ apps/$(1)/$(1).c apps/common/comm_mpi.c $$(APP_LIBS_$(1)) -lm
endef
$(foreach a,$(APP_NAMES),$(eval $(call APP_RULES,$(a))))

# Manual pages (man/, roff).  libpgas(7)'s ENVIRONMENT is made from the
# library's one table of variables (pgasrun --env=roff), so it cannot drift.
MAN_SRCS  := $(wildcard man/man[1-8]/*.[1-8])
MAN_PAGES := $(MAN_SRCS:man/%=$(B)/man/%) $(B)/man/man7/libpgas.7
man: $(MAN_PAGES)

$(B)/man/%: man/%
	@mkdir -p $(dir $@)
	cp $< $@

$(B)/man/man7/libpgas.7: man/man7/libpgas.7.in $(B)/bin/pgasrun
	@mkdir -p $(dir $@)
	$(B)/bin/pgasrun --env=roff >$@.env
	sed -e '/^\.\\" @ENVIRONMENT@$$/{r $@.env' -e 'd' -e '}' $< >$@
	rm -f $@.env
	grep -q '^\.B PGAS_CONDUIT$$' $@

$(B)/bin/pgasrun: tools/pgasrun.c $(B)/lib/libpgas.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(I_BOOT) $(CFLAGS) $(LDFLAGS) -o $@ tools/pgasrun.c $(B)/lib/libpgas.a $(CONDUIT_LIBS)

$(B)/bin/pgas-tune: tools/pgas-tune.c $(B)/lib/libpgas.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ tools/pgas-tune.c $(B)/lib/libpgas.a $(CONDUIT_LIBS)

NL_CFLAGS := $(shell pkg-config --cflags libnl-genl-3.0 2>/dev/null)
NL_LIBS   := $(shell pkg-config --libs libnl-genl-3.0 2>/dev/null)
$(B)/bin/pgasctl: tools/pgasctl.c uapi/pgas_abi.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(NL_CFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< $(NL_LIBS) -lpthread

# Programs link the static library: the fast path is inline anyway.
# lifecycle writes a bootstrap notice by hand.
# stats_plain is stats.c without PGAS_INSTRUMENT.
$(B)/tests/stats_plain: selftests/libpgas/stats.c
$(B)/tests/%: selftests/libpgas/%.c selftests/libpgas/tap.h selftests/libpgas/pingpong.h $(B)/lib/libpgas.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(if $(filter lifecycle,$*),$(I_BOOT)) $(CFLAGS) $(LDFLAGS) -o $@ $< $(B)/lib/libpgas.a $(CONDUIT_LIBS)

$(B)/examples/%: examples/%.c $(B)/lib/libpgas.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< $(B)/lib/libpgas.a $(CONDUIT_LIBS)

$(B)/bench/%: bench/%.c bench/bench.h bench/hpcc_random.h selftests/libpgas/pingpong.h $(B)/lib/libpgas.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -I. $(CFLAGS) $(LDFLAGS) -o $@ $< $(B)/lib/libpgas.a $(CONDUIT_LIBS) -lm

# ---- tests ------------------------------------------------------------------

check:
	scripts/deps.sh test
	scripts/deps.sh vm
	scripts/deps.sh kunit
	scripts/deps.sh debugvm
	scripts/deps.sh deb
	scripts/deps.sh multihost
	$(MAKE) all
	scripts/check-all.sh

check-native: all
	scripts/check-native.sh $(B)

# PMIx boot under mpirun, and the namespace bed (scripts/multihost/bed.sh, root).
check-multihost: all
	scripts/check-multihost.sh $(B)

check-vm:
	scripts/deps.sh vm
	scripts/vm/run.sh

check-kunit:
	scripts/deps.sh kunit
	scripts/kunit/run.sh

check-debugvm:
	scripts/deps.sh debugvm
	scripts/debugvm/run.sh

# ---- pgas.ko (KVER= or KDIR= picks the headers) -------------------------------

modules:
	$(MAKE) -C $(KDIR) M=$(CURDIR)/kmod W=1 modules

modules_install: modules
	$(MAKE) -C $(KDIR) M=$(CURDIR)/kmod modules_install

# The module with its udev rule (group pgas, 0660) and modules-load snippet.
install-kmod: modules_install
	install -D -m 644 udev/60-pgas.rules $(DESTDIR)/etc/udev/rules.d/60-pgas.rules
	install -D -m 644 udev/pgas.conf $(DESTDIR)/etc/modules-load.d/pgas.conf
	install -D -m 644 udev/pgas-memlock.conf $(DESTDIR)/etc/security/limits.d/pgas.conf
	getent group pgas >/dev/null || groupadd --system pgas

vmtests: $(VMTESTS)

# The kselftests see uapi/ and libpgas/pgas_layout.h.
$(B)/tests/%: selftests/kmod/%.c uapi/pgas_abi.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Ilibpgas $(CFLAGS) $(LDFLAGS) -o $@ $<

# ---- benchmarks, demo, install ------------------------------------------------

bench: all
	scripts/bench.sh

# Not in make check: a benchmark across the namespace bed (root, < 10 min).
.PHONY: bench-multihost
bench-multihost: all
	scripts/bench-multihost.sh $(B)

deps:
	scripts/deps.sh build

demo:
	scripts/deps.sh build
	$(MAKE) all
	$(B)/bin/pgasrun -n 4 -t 60 $(B)/examples/demo

# LIBDIR: where the libraries go (a distribution's multiarch directory:
# debian/rules).  oshcc's programs find the libraries of a prefix outside
# the loader's path by their rpath.
LIBDIR ?= $(PREFIX)/lib
comma := ,
OSH_RPATH := $(if $(filter /usr,$(PREFIX)),,-Wl$(comma)-rpath$(comma)$(LIBDIR))

install: lib tools man $(B)/lib/libshmem.a $(B)/lib/libshmem.so $(B)/obj/pshmem/pshmem.h
	install -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(PREFIX)/include/pgas \
	           $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(LIBDIR)/pkgconfig
	install -m 644 $(B)/lib/libpgas.a $(DESTDIR)$(LIBDIR)/
	install -m 755 $(B)/lib/libpgas.so $(DESTDIR)$(LIBDIR)/libpgas.so.0
	ln -sf libpgas.so.0 $(DESTDIR)$(LIBDIR)/libpgas.so
	install -m 644 $(PUBLIC_HEADERS) $(DESTDIR)$(PREFIX)/include/pgas/
	install -m 755 $(B)/bin/pgasrun $(B)/bin/pgasctl $(B)/bin/pgas-tune $(DESTDIR)$(PREFIX)/bin/
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' -e 's|@LIBS_PRIVATE@|$(CONDUIT_LIBS)|' \
		libpgas/pgas.pc.in \
		> $(DESTDIR)$(LIBDIR)/pkgconfig/pgas.pc
	install -m 644 $(B)/lib/libshmem.a $(DESTDIR)$(LIBDIR)/
	install -m 755 $(B)/lib/libshmem.so $(DESTDIR)$(LIBDIR)/libshmem.so.0
	ln -sf libshmem.so.0 $(DESTDIR)$(LIBDIR)/libshmem.so
	install -m 644 shmem/include/shmem.h shmem/include/shmemx.h $(B)/obj/pshmem/pshmem.h \
		$(DESTDIR)$(PREFIX)/include/
	install -m 755 shmem/oshrun shmem/oshc++ $(DESTDIR)$(PREFIX)/bin/
	sed -e 's|@CC@|$(CC)|' -e 's|@OSH_CFLAGS@|-I$(PREFIX)/include -I$(PREFIX)/include/pgas|' \
	    -e 's|@OSH_LINK@|shared|' \
	    -e 's|@OSH_LIBS@|$(LIBDIR)/libshmem.a $(LIBDIR)/libpgas.a $(CONDUIT_LIBS)|' \
	    -e 's|@OSH_SHARED_LIBS@|-L$(LIBDIR) $(OSH_RPATH) -lshmem -lpgas|' shmem/oshcc.in \
	    > $(DESTDIR)$(PREFIX)/bin/oshcc
	chmod 755 $(DESTDIR)$(PREFIX)/bin/oshcc
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' shmem/shmem.pc.in \
		> $(DESTDIR)$(LIBDIR)/pkgconfig/shmem.pc
	for d in $(sort $(dir $(MAN_PAGES))); do \
		install -d $(DESTDIR)$(PREFIX)/share/man/$$(basename $$d) && \
		install -m 644 $$d*.[1-8] $(DESTDIR)$(PREFIX)/share/man/$$(basename $$d)/ || exit 1; \
	done

clean:
	rm -rf build
	-$(MAKE) -C $(KDIR) M=$(CURDIR)/kmod clean >/dev/null 2>&1
