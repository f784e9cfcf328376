# The shm conduit (conduit/shm): always built, PGAS_CONDUIT=auto's last resort.
CONDUIT_SRCS += conduit/shm/shm.c
CONDUIT_DEFS += -DPGAS_WITH_SHM
$(B)/obj/conduit/shm/shm.o: CPPFLAGS += $(I_BOOT)
