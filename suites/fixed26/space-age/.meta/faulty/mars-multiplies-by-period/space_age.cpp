#include "space_age.h"

namespace space_age {

namespace {

constexpr double seconds_per_earth_year = 31557600.0;

}  // namespace

space_age::space_age(unsigned long long seconds) : seconds_(seconds) {}

unsigned long long space_age::seconds() const { return seconds_; }

double space_age::on_earth() const { return seconds_ / seconds_per_earth_year; }

// Each planet's orbital period, in Earth years.
double space_age::on_mercury() const { return on_earth() / 0.2408467; }
double space_age::on_venus() const { return on_earth() / 0.61519726; }
double space_age::on_mars() const { return on_earth() * 1.8808158; }
double space_age::on_jupiter() const { return on_earth() / 11.862615; }
double space_age::on_saturn() const { return on_earth() / 29.447498; }
double space_age::on_uranus() const { return on_earth() / 84.016846; }
double space_age::on_neptune() const { return on_earth() / 164.79132; }

}  // namespace space_age
