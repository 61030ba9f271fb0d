#include "search/command.hpp"
