/* botwire: serial protocols between a mobile robot's controller and its base.
 * Umbrella header: includes every public header. */
#ifndef BOTWIRE_BOTWIRE_H
#define BOTWIRE_BOTWIRE_H

#define BOTWIRE_VERSION "0.1.0"

#include "botwire/wire.h"
#include "botwire/kobuki.h"

#endif
