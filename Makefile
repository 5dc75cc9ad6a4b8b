# windowjoin — PGXS build
#
#   make && make install          build and install into the PostgreSQL found by pg_config
#   make installcheck             run the pg_regress suites against a running server
#
# Every .c file under src/ is part of the module and every sql/*.sql is a
# regression suite, so adding a file needs no Makefile edit.  src/ holds
# _PG_init, the GUCs and the planner hooks; src/nodes/<node>/ each custom
# scan node; src/parallel/ what splits work between parallel participants;
# src/common/ what every node uses; src/functions/ the SQL functions;
# src/continuous/ continuous window views (analysis, capture, scheduler).
# Every folder is on the include path.

EXTENSION = windowjoin
MODULE_big = windowjoin
SRCDIRS = src src/common src/parallel src/functions src/continuous \
	$(sort $(wildcard src/nodes/*))
OBJS = $(patsubst %.c,%.o,$(sort $(foreach d,$(SRCDIRS),$(wildcard $(d)/*.c))))
PG_CPPFLAGS = $(addprefix -I,$(SRCDIRS))
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
$(OBJS) $(OBJS:.o=.bc): $(foreach d,$(SRCDIRS),$(wildcard $(d)/*.h))
