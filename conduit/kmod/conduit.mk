# The pgas.ko conduit (conduit/kmod): always built (it needs only uapi/).
CONDUIT_SRCS += conduit/kmod/kmod.c
CONDUIT_DEFS += -DPGAS_WITH_KMOD
$(B)/obj/conduit/kmod/kmod.o: CPPFLAGS += $(I_BOOT)
