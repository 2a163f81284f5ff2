/** The project-reactor API: {@link io.sluice.reactor.SluiceClient}, {@link io.sluice.reactor.SluiceServer}, {@link io.sluice.reactor.ReactorRequester}, {@link io.sluice.reactor.ReactorResponder}. */
package io.sluice.reactor;
