#include "search/controller.hpp"
