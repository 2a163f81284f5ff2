/** One exception per RSocket error code; {@link io.sluice.exceptions.SluiceException#from} maps codes to them. */
package io.sluice.exceptions;
