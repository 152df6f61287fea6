// Declarations only (include/CFuzzer.h); libFuzzer defines the driver.
#include "CFuzzer.h"
