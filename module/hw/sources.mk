# SPDX-License-Identifier: GPL-2.0
# The hardware engine's sources, relative to module/hw/: pure C, built into
# the module by Kbuild and into the host tests by tests/host/Makefile, both
# of which read this list.  (crypto_kernel.c, the kernel crypto backend, is
# the module's alone: the host tests link an OpenSSL backend instead.)
HW_ENGINE_SRCS := engine.c gcm_stream.c reorder.c
