#include "search/slo.hpp"
