#include "complex_numbers.h"

#include <cmath>

namespace complex_numbers {

Complex::Complex(double real, double imag) : real_{real}, imag_{imag} {}

double Complex::real() const { return real_; }

double Complex::imag() const { return imag_; }

double Complex::abs() const { return std::sqrt(real_ * real_ + imag_ * imag_); }

Complex Complex::conj() const { return {real_, -imag_}; }

Complex Complex::exp() const {
    const double scale = std::exp(real_);
    return {scale * std::cos(imag_), scale * std::sin(imag_)};
}

Complex operator+(const Complex& lhs, const Complex& rhs) {
    return {lhs.real() + rhs.real(), lhs.imag() + rhs.imag()};
}

Complex operator-(const Complex& lhs, const Complex& rhs) {
    return {lhs.real() - rhs.real(), lhs.imag() - rhs.imag()};
}

Complex operator*(const Complex& lhs, const Complex& rhs) {
    return {lhs.real() * rhs.real() - lhs.imag() * rhs.imag(),
            lhs.imag() * rhs.real() + lhs.real() * rhs.imag()};
}

Complex operator/(const Complex& lhs, const Complex& rhs) {
    const double denominator = rhs.real() * rhs.real() + rhs.imag() * rhs.imag();
    return {(lhs.real() * rhs.real() + lhs.imag() * rhs.imag()) / denominator,
            (lhs.imag() * rhs.real() - lhs.real() * rhs.imag()) / denominator};
}

}  // namespace complex_numbers
