/*-------------------------------------------------------------------------
 *
 * huge_pages.h
 *	  Memory for large tables probed at random (huge_pages.c).
 *
 * src/common/huge_pages.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef WJ_HUGE_PAGES_H
#define WJ_HUGE_PAGES_H

#include "utils/memutils.h"

/* at or above this size, an allocation is aligned and advised */
#define WJ_HUGE_PAGE_MIN	((Size) 8 * 1024 * 1024)

/* ... and an array is aligned to huge pages from this size on */
#define WJ_HUGE_ALIGN_MIN	((Size) 2 * 1024 * 1024)

/* size bytes from cxt (zeroed if zero), on huge pages where possible */
extern void *wj_alloc_huge(MemoryContext cxt, Size size, bool zero);

/* an array of size bytes (not zeroed), all of it on huge pages where possible */
extern void *wj_alloc_huge_array(MemoryContext cxt, Size size, bool huge_ok,
								 void **raw);

#endif							/* WJ_HUGE_PAGES_H */
