#include "report/svg_chart.hpp"
