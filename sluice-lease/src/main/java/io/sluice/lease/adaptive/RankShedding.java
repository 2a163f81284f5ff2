package io.sluice.lease.adaptive;

import io.sluice.lease.LeaseGrants;

/**
 * Which priority ranks are admitted at a given load. Ranks run from 0 (highest priority) to {@code
 * ranks - 1}; a larger rank is shed first. Rank {@code r >= 1} is admitted while calls in flight
 * stay below {@code limit * threshold(r)}, with
 *
 * <pre>
 *   threshold(r) = shedFrom + (1 - shedFrom) * (ranks - r) / ranks
 * </pre>
 *
 * so with 4 ranks and {@code shedFrom} 0.5, rank 3 is shed from 62.5% of the limit, rank 2 from
 * 75% and rank 1 from 87.5%. Rank 0 is never shed here: only the lease and the limit itself (the
 * policy refuses every rank at it) bound it.
 * Immutable.
 */
final class RankShedding {
  private final int ranks;
  private final double[] thresholds; // by rank; [0] unused

  RankShedding(int ranks, double shedFrom) {
    this.ranks = ranks;
    this.thresholds = new double[ranks];
    for (int r = 1; r < ranks; r++) {
      thresholds[r] = shedFrom + (1 - shedFrom) * (ranks - r) / (double) ranks;
    }
  }

  int ranks() {
    return ranks;
  }

  /** A rank as returned by the policy's rank function, brought into 0..ranks-1. */
  int clamp(int rank) {
    return rank <= 0 ? 0 : Math.min(rank, ranks - 1);
  }

  /**
   * The lowest priority admitted at {@code inFlight} calls under {@code limit}: {@link
   * LeaseGrants#ALL_RANKS} when none is shed, else the largest rank still admitted (0 at worst).
   */
  int admittedMaxRank(long inFlight, double limit) {
    for (int r = ranks - 1; r >= 1; r--) {
      if (inFlight < limit * thresholds[r]) {
        return r == ranks - 1 ? LeaseGrants.ALL_RANKS : r;
      }
    }
    return ranks == 1 ? LeaseGrants.ALL_RANKS : 0;
  }
}
