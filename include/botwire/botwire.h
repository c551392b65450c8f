/* botwire: serial protocols between a mobile robot's controller and its base.
 * Umbrella header: includes every public header. */
#ifndef BOTWIRE_BOTWIRE_H
#define BOTWIRE_BOTWIRE_H

#define BOTWIRE_VERSION "0.1.0"

#include "botwire/wire.h"
#include "botwire/kobuki.h"
#include "botwire/p2os.h"
#include "botwire/create.h"
#include "botwire/lobot.h"
#include "botwire/rbsm.h"
#include "botwire/rflex.h"
#include "botwire/geom.h"
#include "botwire/sim.h"
#include "botwire/port.h"
#include "botwire/device.h"
#include "botwire/base.h"
#include "botwire/create_base.h"
#include "botwire/behave.h"

#endif
