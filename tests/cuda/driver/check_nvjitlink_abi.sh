#!/usr/bin/env bash
# Checks the built libnvJitLink.so.13 against NVIDIA's, as the dynamic loader
# sees them: the soname, and every function NVIDIA's exports (versioned
# libnvJitLink.so.13, the node programs linked against it require) exported
# here under the same version, nothing else. NVIDIA's __nvJitLinkAPI (no
# header declares it) is the one name left out.
# Usage: check_nvjitlink_abi.sh LIB NVIDIA_LIB
set -euo pipefail
lib=$1 nvidia=$2
fail=0
soname=$(readelf -d "$lib" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
if [ "$soname" != "libnvJitLink.so.13" ]; then echo "FAIL: soname is '$soname'"; fail=1; fi
ours=$(nm -D --defined-only "$lib" | awk '$2 == "T" {print $3}' | sort)
theirs=$(nm -D --defined-only "$nvidia" | awk '$2 == "T" {print $3}' | grep -v '^__nvJitLinkAPI@' | sort)
missing=$(comm -13 <(echo "$ours") <(echo "$theirs"))
extra=$(comm -23 <(echo "$ours") <(echo "$theirs"))
if [ -n "$missing" ]; then echo "FAIL: not exported:"; echo "$missing"; fail=1; fi
if [ -n "$extra" ]; then echo "FAIL: exported beyond NVIDIA's:"; echo "$extra"; fail=1; fi
echo "libnvJitLink.so.13: $(wc -w <<<"$ours") functions exported, $(wc -w <<<"$theirs") of NVIDIA's checked"
exit $fail
