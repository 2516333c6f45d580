#!/usr/bin/env python3
"""Prints a real GPU's attributes through the CUDA driver API (libcuda, no
toolkit needed) so configs/gpus/*.toml can be checked against hardware.
Usage: python3 probe_gpu.py [device-index]. Not run by the test suite."""
import ctypes
import re
import sys

# Attribute numbers from CUdevice_attribute in cuda.h (stable ABI values).
ATTRS = {
    1: "max_threads_per_block", 2: "max_block_dim_x", 3: "max_block_dim_y",
    4: "max_block_dim_z", 5: "max_grid_dim_x", 6: "max_grid_dim_y",
    7: "max_grid_dim_z", 8: "shared_memory_per_block", 9: "constant_memory_bytes",
    10: "warp_size", 12: "registers_per_block", 13: "clock_khz",
    16: "sm_count", 36: "memory_clock_khz", 37: "memory_bus_width_bits",
    38: "l2_cache_bytes", 39: "max_threads_per_sm", 40: "async_engine_count",
    75: "cc_major", 76: "cc_minor", 81: "shared_memory_per_sm",
    82: "registers_per_sm", 97: "shared_memory_per_block_optin",
    106: "max_blocks_per_sm", 111: "reserved_shared_memory_per_block",
}


def main():
    dev_index = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    cuda = ctypes.CDLL("libcuda.so.1")
    check = lambda rc, what: rc == 0 or sys.exit(f"{what} failed: {rc}")
    check(cuda.cuInit(0), "cuInit")
    dev = ctypes.c_int()
    check(cuda.cuDeviceGet(ctypes.byref(dev), dev_index), "cuDeviceGet")
    name = ctypes.create_string_buffer(256)
    check(cuda.cuDeviceGetName(name, 256, dev), "cuDeviceGetName")
    total = ctypes.c_size_t()
    check(cuda.cuDeviceTotalMem_v2(ctypes.byref(total), dev), "cuDeviceTotalMem")
    print(f"name = {name.value.decode()}")
    print(f"global_memory_bytes = {total.value}")
    for num, key in ATTRS.items():
        v = ctypes.c_int()
        rc = cuda.cuDeviceGetAttribute(ctypes.byref(v), num, dev)
        print(f"{key} = {v.value if rc == 0 else f'<error {rc}>'}")
    # Cross-check attribute numbers against cuda.h when a toolkit is present.
    for hdr in ("/usr/local/cuda/include/cuda.h", "/usr/include/cuda.h"):
        try:
            text = open(hdr).read()
        except OSError:
            continue
        for m in re.finditer(r"CU_DEVICE_ATTRIBUTE_(\w+)\s*=\s*(\d+)", text):
            if int(m.group(2)) in ATTRS:
                print(f"# cuda.h: {m.group(1)} = {m.group(2)}")
        break


if __name__ == "__main__":
    main()
