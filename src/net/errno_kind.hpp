#pragma once

#include "core/errors.hpp"

namespace rateperf::net {

// The one place where errno values become error kinds (httperf's categories).
ErrorKind error_from_errno(int err);

}  // namespace rateperf::net
