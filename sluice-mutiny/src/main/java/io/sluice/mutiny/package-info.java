/**
 * The SmallRye Mutiny API: {@link io.smallrye.mutiny.Uni} and {@link io.smallrye.mutiny.Multi} over
 * the core's streams. Start with {@link io.sluice.mutiny.MutinyClient} and {@link
 * io.sluice.mutiny.MutinyServer}.
 */
package io.sluice.mutiny;
