// SwiftPM needs a source file in a C target; the functions come from libxxhash.
#include "CXXHash.h"
