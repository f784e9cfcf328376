/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * pgas_compat.h - what differs between the kernels pgas.ko builds for
 * (Debian 12's 6.1 and 6.12).
 *
 * Since 6.3 vma->vm_flags is const: it changes only through
 * vm_flags_set()/vm_flags_clear(), which also check that the mmap lock is
 * held for writing (it is, in ->mmap).  Before 6.3 those helpers do not
 * exist and the field is written directly.  Kbuild defines
 * PGAS_HAVE_VM_FLAGS_SET when the kernel's <linux/mm.h> has them (a test
 * of the API, not of the version number).
 */
#ifndef PGAS_COMPAT_H
#define PGAS_COMPAT_H

#include <linux/mm.h>

#ifndef PGAS_HAVE_VM_FLAGS_SET
static inline void pgas_vm_flags_set(struct vm_area_struct *vma,
				     unsigned long flags)
{
	vma->vm_flags |= flags;
}

static inline void pgas_vm_flags_clear(struct vm_area_struct *vma,
				       unsigned long flags)
{
	vma->vm_flags &= ~flags;
}
#else
static inline void pgas_vm_flags_set(struct vm_area_struct *vma,
				     vm_flags_t flags)
{
	vm_flags_set(vma, flags);
}

static inline void pgas_vm_flags_clear(struct vm_area_struct *vma,
				       vm_flags_t flags)
{
	vm_flags_clear(vma, flags);
}
#endif

#endif /* PGAS_COMPAT_H */
