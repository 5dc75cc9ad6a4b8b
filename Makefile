# windowjoin — PGXS build
#
#   make && make install          build and install into the PostgreSQL found by pg_config
#   make installcheck             run the pg_regress suites against a running server
#
# Every src/*.c is part of the module and every sql/*.sql is a regression
# suite, so adding a file needs no Makefile edit.

EXTENSION = windowjoin
MODULE_big = windowjoin
OBJS = $(patsubst %.c,%.o,$(sort $(wildcard src/*.c)))
DATA = $(sort $(wildcard windowjoin--*.sql))
PGFILEDESC = "windowjoin - time windows and time-aware joins"

REGRESS = $(patsubst sql/%.sql,%,$(sort $(wildcard sql/*.sql)))
REGRESS_OPTS = --inputdir=. --load-extension=windowjoin

# CI and scripts/test pass WERROR=1 to make every warning fatal.
ifdef WERROR
PG_CFLAGS += -Wall -Werror
endif

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# PGXS tracks no header dependencies (unless PostgreSQL was configured with
# --enable-depend): rebuild every object when any of our headers changes, so
# that a changed struct layout never meets an object (or the bitcode JIT
# inlines) compiled against the old one.
$(OBJS) $(OBJS:.o=.bc): $(wildcard src/*.h)
