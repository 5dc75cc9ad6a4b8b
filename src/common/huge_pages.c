/*-------------------------------------------------------------------------
 *
 * huge_pages.c
 *	  Memory for large tables probed at random: hash tables and state
 *	  arrays of tens of megabytes, where every row touches a different
 *	  page.
 *
 * With 4 kB pages such a table misses the TLB on nearly every probe, and
 * the page walks, not the cache misses, bound the node: a prefetch waits
 * for its walk.  On Linux, where transparent huge pages are enabled as
 * "madvise" (Debian's default) or "always", a region advised with
 * MADV_HUGEPAGE is backed by 2 MB pages as it is first touched.  So an
 * allocation of at least WJ_HUGE_PAGE_MIN, an ordinary chunk of the memory
 * context (its own malloc'ed block, untouched), has the 2 MB-aligned part
 * of it advised before anything writes it, and is then zeroed if asked:
 * those pages are faulted in huge.  The memory stays the context's: pfree
 * or a reset frees it, MemoryContextMemAllocated counts it, no slack is
 * added.  Elsewhere, or for smaller sizes, it is an ordinary allocation.
 *
 * An array zeroed in full as soon as it exists (a dense array of windows,
 * grown by doubling) pays for every page at once, and a first touch of a
 * 4 kB page is a page fault: on the project's virtual machine about 3 ms
 * per MB, against about 0.1 ms per MB on 2 MB pages (a fresh 4 MB region
 * zeroed: 12.4 ms, and 0.4 ms advised).  Every parallel worker is a fresh
 * process and pays it anew.  wj_alloc_huge_array therefore takes the
 * array's size rounded up to 2 MB, and 2 MB more, from WJ_HUGE_ALIGN_MIN on,
 * and starts the array on a 2 MB boundary, advising all of it: the slack is
 * never touched, so it costs address space, not memory; but
 * MemoryContextMemAllocated counts it, so the caller says whether its
 * memory limit can spare it.
 *
 * src/common/huge_pages.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#ifdef __linux__
#include <sys/mman.h>
#endif

#include "src/common/huge_pages.h"

#define WJ_HUGE_PAGE_SIZE	((Size) 2 * 1024 * 1024)

/*
 * wj_alloc_huge
 *		size bytes from cxt, zeroed if zero; at or above WJ_HUGE_PAGE_MIN
 *		its 2 MB-aligned part advised for huge pages.  Freed by pfree.
 */
void *
wj_alloc_huge(MemoryContext cxt, Size size, bool zero)
{
	char	   *p = MemoryContextAllocExtended(cxt, size, MCXT_ALLOC_HUGE);

#ifdef MADV_HUGEPAGE
	if (size >= WJ_HUGE_PAGE_MIN)
	{
		char	   *from = (char *) TYPEALIGN(WJ_HUGE_PAGE_SIZE, p);
		char	   *to = (char *) TYPEALIGN_DOWN(WJ_HUGE_PAGE_SIZE, p + size);

		/* only a hint: without transparent huge pages it fails, harmlessly */
		if (to > from)
			(void) madvise(from, to - from, MADV_HUGEPAGE);
	}
#endif
	if (zero)
		memset(p, 0, size);
	return p;
}

/*
 * wj_alloc_huge_array
 *		An array of size bytes from cxt, aligned to a cache line; from
 *		WJ_HUGE_ALIGN_MIN on, when the caller can spare the slack (huge_ok),
 *		aligned to a huge page and all of it advised.  Not zeroed: the
 *		caller zeroes what it uses, so that pages it never uses are never
 *		touched.  *raw is what to pfree.
 */
void *
wj_alloc_huge_array(MemoryContext cxt, Size size, bool huge_ok, void **raw)
{
	char	   *p;

#ifdef MADV_HUGEPAGE
	if (huge_ok && size >= WJ_HUGE_ALIGN_MIN)
	{
		Size		span = TYPEALIGN(WJ_HUGE_PAGE_SIZE, size);

		*raw = MemoryContextAllocExtended(cxt, span + WJ_HUGE_PAGE_SIZE, MCXT_ALLOC_HUGE);
		p = (char *) TYPEALIGN(WJ_HUGE_PAGE_SIZE, *raw);
		/* only a hint: without transparent huge pages it fails, harmlessly */
		(void) madvise(p, span, MADV_HUGEPAGE);
		return p;
	}
#endif
	*raw = MemoryContextAllocExtended(cxt, size + PG_CACHE_LINE_SIZE, MCXT_ALLOC_HUGE);
	p = (char *) TYPEALIGN(PG_CACHE_LINE_SIZE, *raw);
	return p;
}
