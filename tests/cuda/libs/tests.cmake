# Unmodified CCCL (Thrust and CUB from the toolkit's headers) under softgpu,
# every result checked against a host reference (std::sort, std::partial_sum,
# loops). See libs/README.md for the features covered and their status.
#   thrust_algorithms: device_vector, sequence, transform (unary, binary),
#     reduce (sum, max), inclusive_scan, copy, count_if (1e6 ints).
#   thrust_sort: sort (u32 ascending, i32 with greater<>: radix sort),
#     stable_sort with a comparator (merge sort), sort_by_key (5e5 keys).
#   cub_block: BlockReduce (Sum, Reduce with a functor), BlockScan
#     (InclusiveSum, ExclusiveSum with aggregate), WarpReduce::Sum in user
#     kernels (1e6 items, 3907 blocks).
#   cub_device: DeviceReduce::Sum, DeviceScan::InclusiveSum,
#     DeviceRadixSort::SortKeys/SortPairs/SortPairsDescending (bit range),
#     DeviceHistogram::HistogramEven (5e5 items).
foreach(p thrust_algorithms thrust_sort cub_block cub_device)
  softgpu_cuda_program(${p} SOURCES libs/${p}.cu ARCH -arch=sm_80)
  cuda_test(${p} ${p} STDOUT_REGEX "PASS ${p}" TIMEOUT 300)
endforeach()
# sm_90 builds take CCCL's Hopper paths (bulk-copy transform, programmatic
# dependent launch in the sort kernels).
foreach(p thrust_algorithms thrust_sort cub_device)
  softgpu_cuda_program(${p}_sm90 SOURCES libs/${p}.cu ARCH -arch=sm_90)
  cuda_test(${p}_sm90 ${p}_sm90 STDOUT_REGEX "PASS ${p}" TIMEOUT 300)
endforeach()

# Stream property and capture-status queries libraries make (enabled: passes).
softgpu_cuda_program(stream_queries SOURCES libs/stream_queries.cu ARCH -arch=sm_80)
cuda_test(stream_queries stream_queries STDOUT_REGEX "PASS stream_queries")

