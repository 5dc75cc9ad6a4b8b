/*-------------------------------------------------------------------------
 *
 * cv_vacuum.h
 *	  Vacuum of continuous views' state tables by the scheduler
 *	  (cv_vacuum.c).
 *
 * src/continuous/cv_vacuum.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef CV_VACUUM_H
#define CV_VACUUM_H

#include "postgres.h"

#include "nodes/pg_list.h"

/* After a scheduler round: vacuum the bloated state tables of views. */
extern void cv_vacuum_state(List *views);

#endif							/* CV_VACUUM_H */
