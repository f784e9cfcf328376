# The libfabric conduit (conduit/ofi, docs/ofi.md): built where pkg-config
# finds libfabric, and not in static builds (the VM tier's initramfs) nor
# with OFI=0.  pgasrun --version says whether it is in.
ifeq ($(STATIC)$(filter 0 no,$(OFI)),)
OFI_FOUND := $(shell pkg-config --exists libfabric 2>/dev/null && echo yes)
endif
ifeq ($(OFI_FOUND),yes)
CONDUIT_SRCS += conduit/ofi/ofi.c
CONDUIT_DEFS += -DPGAS_WITH_OFI
# libfabric itself is loaded at run time (dlopen): only where PGAS_CONDUIT=ofi.
CONDUIT_LIBS += -ldl
$(B)/obj/conduit/ofi/ofi.o: CPPFLAGS += $(I_BOOT) -Iconduit/shm $(shell pkg-config --cflags libfabric)
$(B)/obj/conduit/ofi/ofi.o: conduit/ofi/wire.h
# A process outside the job (check-native's ofi block, with tests/jobkey):
# plain libfabric, linked, not a pgas program.
tests: $(B)/tests/ofi_intruder
$(B)/tests/ofi_intruder: selftests/ofi/intruder.c conduit/ofi/wire.h uapi/pgas_abi.h
	@mkdir -p $(dir $@)
	$(CC) -Iuapi -Iconduit/ofi $(shell pkg-config --cflags libfabric) $(CFLAGS) $(LDFLAGS) \
		-o $@ $< $(shell pkg-config --libs libfabric)
endif
