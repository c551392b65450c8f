#include "common.h"

volatile uint8_t bw_size_rx, bw_size_tx, bw_size_ready;
