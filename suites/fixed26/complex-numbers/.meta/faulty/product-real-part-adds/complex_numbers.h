#ifndef COMPLEX_NUMBERS_H
#define COMPLEX_NUMBERS_H

namespace complex_numbers {

class Complex {
public:
    // Not explicit: a real number converts to real + 0i, which gives every operator below
    // its mixed real/complex forms on either side.
    Complex(double real, double imag = 0.0);

    double real() const;
    double imag() const;
    double abs() const;
    Complex conj() const;
    Complex exp() const;

private:
    double real_;
    double imag_;
};

Complex operator+(const Complex& lhs, const Complex& rhs);
Complex operator-(const Complex& lhs, const Complex& rhs);
Complex operator*(const Complex& lhs, const Complex& rhs);
Complex operator/(const Complex& lhs, const Complex& rhs);

}  // namespace complex_numbers

#endif  // COMPLEX_NUMBERS_H
