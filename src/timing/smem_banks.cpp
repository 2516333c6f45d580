#include "timing/smem_banks.h"

#include <algorithm>
#include <array>
#include <bit>

namespace softgpu::timing {

uint32_t shared_wavefronts(const uint64_t* lane_addr, uint32_t mask, uint32_t bytes) {
  const uint32_t words_per_lane = std::max<uint32_t>(1, (bytes + kBankBytes - 1) / kBankBytes);
  const uint32_t phases = std::min<uint32_t>(words_per_lane, 4);
  const uint32_t lanes_per_phase = 32 / phases;
  uint32_t total = 0;
  for (uint32_t ph = 0; ph < phases; ++ph) {
    const uint32_t phase_mask = mask & (lanes_per_phase == 32 ? ~0u : ((1u << lanes_per_phase) - 1) << (ph * lanes_per_phase));
    if (!phase_mask) continue;
    // Distinct words per bank: at most 32 lanes x 4 words in a phase.
    std::array<uint64_t, 128> words{};
    uint32_t n = 0;
    for (uint32_t m = phase_mask; m; m &= m - 1) {
      const uint64_t w0 = lane_addr[std::countr_zero(m)] / kBankBytes;
      for (uint32_t k = 0; k < words_per_lane && n < words.size(); ++k) words[n++] = w0 + k;
    }
    std::sort(words.begin(), words.begin() + n);
    const auto end = std::unique(words.begin(), words.begin() + n);
    std::array<uint32_t, kBanks> per_bank{};
    uint32_t worst = 0;
    for (auto it = words.begin(); it != end; ++it) worst = std::max(worst, ++per_bank[*it % kBanks]);
    total += worst;
  }
  return total;
}

}  // namespace softgpu::timing
