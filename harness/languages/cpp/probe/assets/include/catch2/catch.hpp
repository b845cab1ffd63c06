// A recording stand-in for Catch2 v2, found before the real <catch2/catch.hpp> when the
// harness builds a probe from a task's own test file. Test cases register as probe cases;
// every assertion writes what it saw (its operands' values, whether and what it threw,
// the value a matcher was given) as a record instead of judging it. The harness compares
// those records with the reference solution's (harness/probe/compare.py). Only the
// control flow stays the framework's: a failed REQUIRE ends its test case's pass, except
// where HARNESS_PROBE_OBSERVE_ALL is set (the task's own cases run as calls: every
// assertion is an observation there, as a model predicting them is told).
//
// Supported: TEST_CASE, TEST_CASE_METHOD, SCENARIO/GIVEN/WHEN/THEN, SECTION, REQUIRE,
// CHECK and their _FALSE, _THROWS, _THROWS_AS, _NOTHROW and _THAT forms, Approx,
// Catch::Matchers::WithinAbs/WithinRel, matchers derived from Catch::MatcherBase, FAIL,
// SUCCEED, INFO/CAPTURE/WARN and CATCH_REGISTER_ENUM (ignored), STATIC_REQUIRE,
// CATCH_CONFIG_MAIN.
#ifndef HARNESS_PROBE_CATCH_STANDIN_HPP
#define HARNESS_PROBE_CATCH_STANDIN_HPP
#pragma GCC system_header

#include "../harness_probe.hpp"

#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>

namespace Catch {
namespace Detail {

// Catch2's Approx, with its defaults and its comparison, so a test reads the same.
class Approx {
public:
    explicit Approx(double value) : value_(value) {}

    template <class T, class = std::enable_if_t<std::is_constructible<double, T>::value>>
    explicit Approx(const T& value) : Approx(static_cast<double>(value)) {}

    static Approx custom() { return Approx(0); }

    Approx operator-() const {
        Approx negated(*this);
        negated.value_ = -value_;
        return negated;
    }

    template <class T, class = std::enable_if_t<std::is_constructible<double, T>::value>>
    Approx operator()(const T& value) const {
        Approx approx(static_cast<double>(value));
        approx.epsilon_ = epsilon_;
        approx.margin_ = margin_;
        approx.scale_ = scale_;
        return approx;
    }

    template <class T, class = std::enable_if_t<std::is_constructible<double, T>::value>>
    Approx& epsilon(const T& value) {
        epsilon_ = static_cast<double>(value);
        return *this;
    }
    template <class T, class = std::enable_if_t<std::is_constructible<double, T>::value>>
    Approx& margin(const T& value) {
        margin_ = static_cast<double>(value);
        return *this;
    }
    template <class T, class = std::enable_if_t<std::is_constructible<double, T>::value>>
    Approx& scale(const T& value) {
        scale_ = static_cast<double>(value);
        return *this;
    }

    bool equals(double other) const {
        return within(other, margin_) ||
               within(other, epsilon_ * (scale_ + std::fabs(std::isinf(value_) ? 0 : value_)));
    }

    double value() const { return value_; }

    // What the probe records for an Approx operand: the harness judges with these.
    std::string record() const {
        return "{\"approx\":[" + harness_probe::json(value_) + "," + harness_probe::json(epsilon_) + "," +
               harness_probe::json(margin_) + "," + harness_probe::json(scale_) + "]}";
    }

    template <class T, class = std::enable_if_t<std::is_constructible<double, T>::value>>
    friend bool operator==(const T& lhs, const Approx& rhs) {
        return rhs.equals(static_cast<double>(lhs));
    }
    template <class T, class = std::enable_if_t<std::is_constructible<double, T>::value>>
    friend bool operator==(const Approx& lhs, const T& rhs) {
        return rhs == lhs;
    }
    template <class T, class = std::enable_if_t<std::is_constructible<double, T>::value>>
    friend bool operator!=(const T& lhs, const Approx& rhs) {
        return !(lhs == rhs);
    }
    template <class T, class = std::enable_if_t<std::is_constructible<double, T>::value>>
    friend bool operator!=(const Approx& lhs, const T& rhs) {
        return !(rhs == lhs);
    }
    template <class T, class = std::enable_if_t<std::is_constructible<double, T>::value>>
    friend bool operator<=(const T& lhs, const Approx& rhs) {
        return static_cast<double>(lhs) < rhs.value_ || lhs == rhs;
    }
    template <class T, class = std::enable_if_t<std::is_constructible<double, T>::value>>
    friend bool operator<=(const Approx& lhs, const T& rhs) {
        return lhs.value_ < static_cast<double>(rhs) || lhs == rhs;
    }
    template <class T, class = std::enable_if_t<std::is_constructible<double, T>::value>>
    friend bool operator>=(const T& lhs, const Approx& rhs) {
        return static_cast<double>(lhs) > rhs.value_ || lhs == rhs;
    }
    template <class T, class = std::enable_if_t<std::is_constructible<double, T>::value>>
    friend bool operator>=(const Approx& lhs, const T& rhs) {
        return lhs.value_ > static_cast<double>(rhs) || lhs == rhs;
    }

private:
    bool within(double other, double margin) const { return value_ + margin >= other && other + margin >= value_; }

    double value_;
    double epsilon_ = std::numeric_limits<float>::epsilon() * 100;
    double margin_ = 0.0;
    double scale_ = 0.0;
};

}  // namespace Detail

namespace Matchers {
namespace Impl {

template <class T>
class MatcherBase {
public:
    virtual ~MatcherBase() = default;
    virtual bool match(const T& arg) const = 0;
    virtual std::string describe() const = 0;
    std::string toString() const { return describe(); }
};

}  // namespace Impl

namespace Floating {

// What the harness needs to judge the value itself: the kind, the target and the bound.
class WithinAbsMatcher : public Impl::MatcherBase<double> {
public:
    WithinAbsMatcher(double target, double margin) : target_(target), margin_(margin) {}
    bool match(const double& arg) const override { return arg + margin_ >= target_ && target_ + margin_ >= arg; }
    std::string describe() const override { return "is within " + std::to_string(margin_) + " of " + std::to_string(target_); }
    std::string record() const {
        return "{\"abs\":[" + harness_probe::json(target_) + "," + harness_probe::json(margin_) + "]}";
    }

private:
    double target_, margin_;
};

class WithinRelMatcher : public Impl::MatcherBase<double> {
public:
    WithinRelMatcher(double target, double epsilon) : target_(target), epsilon_(epsilon) {}
    bool match(const double& arg) const override {
        const double margin = epsilon_ * std::fmax(std::fabs(arg), std::fabs(target_));
        return arg + margin >= target_ && target_ + margin >= arg;
    }
    std::string describe() const override { return "is within " + std::to_string(epsilon_) + " relative of " + std::to_string(target_); }
    std::string record() const {
        return "{\"rel\":[" + harness_probe::json(target_) + "," + harness_probe::json(epsilon_) + "]}";
    }

private:
    double target_, epsilon_;
};

}  // namespace Floating

inline Floating::WithinAbsMatcher WithinAbs(double target, double margin) { return {target, margin}; }
inline Floating::WithinRelMatcher WithinRel(double target, double epsilon = std::numeric_limits<double>::epsilon() * 100) {
    return {target, epsilon};
}

}  // namespace Matchers

using namespace Matchers;
using Matchers::Impl::MatcherBase;

// For tests that bring their own main (CATCH_CONFIG_RUNNER): running a session runs the
// probe.
class Session {
public:
    int applyCommandLine(int, const char* const*) { return 0; }
    int applyCommandLine(int, char* const*) { return 0; }
    int run(int = 0, char* const* = nullptr) { return harness_probe::run_all(); }
    int run(int, const char* const*) { return harness_probe::run_all(); }
};

}  // namespace Catch

using Catch::Detail::Approx;

namespace harness_probe {

// --- assertions: decompose as the framework does, record instead of judging ------------

template <class T>
std::string operand(const T& value) {
    if constexpr (std::is_same_v<detail::bare<T>, Catch::Detail::Approx>) {
        return value.record();
    } else if constexpr (can_encode<T>) {
        return json(value);
    } else {
        return std::string();
    }
}

template <class L, class R>
struct BinaryExpr {
    const L& lhs;
    const R& rhs;
    const char* op;
    bool result;
};

template <class L>
struct ExprLhs {
    const L& lhs;

    template <class R>
    BinaryExpr<L, R> operator==(const R& rhs) const {
        return {lhs, rhs, "==", static_cast<bool>(lhs == rhs)};
    }
    template <class R>
    BinaryExpr<L, R> operator!=(const R& rhs) const {
        return {lhs, rhs, "!=", static_cast<bool>(lhs != rhs)};
    }
    template <class R>
    BinaryExpr<L, R> operator<(const R& rhs) const {
        return {lhs, rhs, "<", static_cast<bool>(lhs < rhs)};
    }
    template <class R>
    BinaryExpr<L, R> operator>(const R& rhs) const {
        return {lhs, rhs, ">", static_cast<bool>(lhs > rhs)};
    }
    template <class R>
    BinaryExpr<L, R> operator<=(const R& rhs) const {
        return {lhs, rhs, "<=", static_cast<bool>(lhs <= rhs)};
    }
    template <class R>
    BinaryExpr<L, R> operator>=(const R& rhs) const {
        return {lhs, rhs, ">=", static_cast<bool>(lhs >= rhs)};
    }
};

struct Decomposer {
    template <class T>
    ExprLhs<T> operator<=(const T& lhs) const {
        return ExprLhs<T>{lhs};
    }
};

struct Site {
    const char* macro;
    const char* text;
    int line;
    bool abort;  // REQUIRE: a failure ends the test case's pass
};

inline std::string site_fields(const Site& site) {
    return ",\"a\":" + json_text(site.macro) + ",\"e\":" + json_text(site.text) + ",\"line\":" + std::to_string(site.line);
}

inline bool observe_all() {
    static const bool set = std::getenv("HARNESS_PROBE_OBSERVE_ALL") != nullptr;
    return set;
}

inline void conclude(bool ok, const Site& site) {
    if (!ok && site.abort && !observe_all()) throw AbortCase{};
}

template <class L, class R>
void assertion(const BinaryExpr<L, R>& expr, const Site& site, bool negate) {
    std::string rec = "{\"k\":\"cmp\",\"op\":" + json_text(expr.op);
    const std::string l = operand(expr.lhs), r = operand(expr.rhs);
    if (!l.empty()) rec += ",\"l\":" + l;
    if (!r.empty()) rec += ",\"r\":" + r;
    const bool ok = expr.result != negate;
    rec += std::string(",\"neg\":") + (negate ? "true" : "false") + ",\"ok\":" + (ok ? "true" : "false");
    record(rec + site_fields(site) + "}");
    conclude(ok, site);
}

template <class L>
void assertion(const ExprLhs<L>& expr, const Site& site, bool negate) {
    std::string rec = "{\"k\":\"val\"";
    const std::string v = operand(expr.lhs);
    if (!v.empty()) rec += ",\"v\":" + v;
    const bool ok = static_cast<bool>(expr.lhs) != negate;
    rec += std::string(",\"neg\":") + (negate ? "true" : "false") + ",\"ok\":" + (ok ? "true" : "false");
    record(rec + site_fields(site) + "}");
    conclude(ok, site);
}

inline void raised(const Site& site) {
    record("{\"k\":\"raised\",\"x\":" + json_text(exception_type(std::current_exception())) + site_fields(site) + "}");
    conclude(false, site);
}

inline void throws(bool threw, bool matched, const char* as, const char* type, const Site& site) {
    std::string rec = "{\"k\":\"throws\",\"threw\":" + std::string(threw ? "true" : "false");
    if (as != nullptr) rec += ",\"as\":" + json_text(as) + ",\"is\":" + (matched ? "true" : "false");
    if (type != nullptr) rec += ",\"x\":" + json_text(type);
    const bool ok = threw && (as == nullptr || matched);
    record(rec + ",\"ok\":" + (ok ? "true" : "false") + site_fields(site) + "}");
    conclude(ok, site);
}

inline void nothrow(const char* type, const Site& site) {
    std::string rec = "{\"k\":\"nothrow\"";
    if (type != nullptr) rec += ",\"x\":" + json_text(type);
    record(rec + ",\"ok\":" + (type == nullptr ? "true" : "false") + site_fields(site) + "}");
    conclude(type == nullptr, site);
}

template <class M, class = void>
struct recordable_matcher : std::false_type {};
template <class M>
struct recordable_matcher<M, std::void_t<decltype(std::declval<const M&>().record())>> : std::true_type {};

template <class A, class M>
void that(const A& arg, const M& matcher, const Site& site) {
    const bool ok = matcher.match(arg);
    std::string rec = "{\"k\":\"that\"";
    const std::string v = operand(arg);
    if (!v.empty()) rec += ",\"v\":" + v;
    if constexpr (recordable_matcher<M>::value) {
        rec += ",\"m\":" + matcher.record();
    } else {
        rec += ",\"m\":{\"describe\":" + json(matcher.describe()) + "}";
    }
    record(rec + ",\"ok\":" + (ok ? "true" : "false") + site_fields(site) + "}");
    conclude(ok, site);
}

inline void failed(const Site& site) {
    record("{\"k\":\"fail\"" + site_fields(site) + "}");
    conclude(false, site);
}

inline const char* case_name(const char* name, const char* = "") { return name; }

// A dynamic section's name, from a stream expression.
struct Text {
    std::ostringstream stream;
    template <class T>
    Text& operator<<(const T& value) {
        stream << value;
        return *this;
    }
    operator std::string() const { return stream.str(); }
};

// INFO, CAPTURE and WARN take stream expressions and say nothing the harness needs.
struct Discard {
    template <class T>
    const Discard& operator<<(const T&) const {
        return *this;
    }
};

}  // namespace harness_probe

#define HARNESS_PROBE_CAT2(a, b) a##b
#define HARNESS_PROBE_CAT(a, b) HARNESS_PROBE_CAT2(a, b)
#define HARNESS_PROBE_UNIQUE(base) HARNESS_PROBE_CAT(base, __COUNTER__)

#define HARNESS_PROBE_TEST_CASE(fn, ...)                                                              \
    static void fn();                                                                                 \
    static const ::harness_probe::Registrar HARNESS_PROBE_CAT(fn, _registrar){                        \
        ::harness_probe::case_name(__VA_ARGS__), &fn};                                                \
    static void fn()
#define TEST_CASE(...) HARNESS_PROBE_TEST_CASE(HARNESS_PROBE_UNIQUE(harness_probe_test_), __VA_ARGS__)

#define HARNESS_PROBE_TEST_CASE_METHOD(type, fixture, ...)                                            \
    namespace {                                                                                       \
    struct type : fixture {                                                                           \
        void test();                                                                                  \
    };                                                                                                \
    const ::harness_probe::Registrar HARNESS_PROBE_CAT(type, _registrar){                             \
        ::harness_probe::case_name(__VA_ARGS__), [] {                                                 \
            type instance;                                                                            \
            instance.test();                                                                          \
        }};                                                                                           \
    }                                                                                                 \
    void type::test()
#define TEST_CASE_METHOD(fixture, ...) \
    HARNESS_PROBE_TEST_CASE_METHOD(HARNESS_PROBE_UNIQUE(harness_probe_fixture_), fixture, __VA_ARGS__)

#define HARNESS_PROBE_SECTION(guard, ...) if (const ::harness_probe::Section guard{__VA_ARGS__}; guard)
#define SECTION(...) HARNESS_PROBE_SECTION(HARNESS_PROBE_UNIQUE(harness_probe_section_), __VA_ARGS__)
#define DYNAMIC_SECTION(...) SECTION(::std::string(::harness_probe::Text() << __VA_ARGS__))
#define SCENARIO(...) TEST_CASE("Scenario: " __VA_ARGS__)
#define GIVEN(desc) SECTION(std::string("Given: ") + desc)
#define AND_GIVEN(desc) SECTION(std::string("And given: ") + desc)
#define WHEN(desc) SECTION(std::string("When: ") + desc)
#define AND_WHEN(desc) SECTION(std::string("And when: ") + desc)
#define THEN(desc) SECTION(std::string("Then: ") + desc)
#define AND_THEN(desc) SECTION(std::string("And: ") + desc)

#define HARNESS_PROBE_SITE(macro, text, abort) (::harness_probe::Site{macro, text, __LINE__, abort})

#define HARNESS_PROBE_ASSERT(macro, abort, negate, ...)                                                          \
    do {                                                                                                         \
        try {                                                                                                    \
            ::harness_probe::assertion(::harness_probe::Decomposer() <= __VA_ARGS__,                             \
                                       HARNESS_PROBE_SITE(macro, #__VA_ARGS__, abort), negate);                  \
        } catch (const ::harness_probe::AbortCase&) {                                                            \
            throw;                                                                                               \
        } catch (...) {                                                                                          \
            ::harness_probe::raised(HARNESS_PROBE_SITE(macro, #__VA_ARGS__, abort));                             \
        }                                                                                                        \
    } while (false)

#define HARNESS_PROBE_THROWS(macro, abort, ...)                                                                  \
    do {                                                                                                         \
        bool harness_probe_threw = false;                                                                        \
        const char* harness_probe_type = nullptr;                                                                \
        try {                                                                                                    \
            static_cast<void>(__VA_ARGS__);                                                                      \
        } catch (...) {                                                                                          \
            harness_probe_threw = true;                                                                          \
            harness_probe_type = ::harness_probe::exception_type(std::current_exception());                      \
        }                                                                                                        \
        ::harness_probe::throws(harness_probe_threw, false, nullptr, harness_probe_type,                         \
                                HARNESS_PROBE_SITE(macro, #__VA_ARGS__, abort));                                 \
    } while (false)

#define HARNESS_PROBE_THROWS_AS(macro, abort, expr, type)                                                        \
    do {                                                                                                         \
        bool harness_probe_threw = false, harness_probe_is = false;                                              \
        const char* harness_probe_type = nullptr;                                                                \
        try {                                                                                                    \
            static_cast<void>(expr);                                                                             \
        } catch (const type&) {                                                                                  \
            harness_probe_threw = harness_probe_is = true;                                                       \
            harness_probe_type = ::harness_probe::exception_type(std::current_exception());                      \
        } catch (...) {                                                                                          \
            harness_probe_threw = true;                                                                          \
            harness_probe_type = ::harness_probe::exception_type(std::current_exception());                      \
        }                                                                                                        \
        ::harness_probe::throws(harness_probe_threw, harness_probe_is, #type, harness_probe_type,                \
                                HARNESS_PROBE_SITE(macro, #expr, abort));                                        \
    } while (false)

#define HARNESS_PROBE_NOTHROW(macro, abort, ...)                                                                 \
    do {                                                                                                         \
        const char* harness_probe_type = nullptr;                                                                \
        try {                                                                                                    \
            static_cast<void>(__VA_ARGS__);                                                                      \
        } catch (...) {                                                                                          \
            harness_probe_type = ::harness_probe::exception_type(std::current_exception());                      \
        }                                                                                                        \
        ::harness_probe::nothrow(harness_probe_type, HARNESS_PROBE_SITE(macro, #__VA_ARGS__, abort));           \
    } while (false)

#define HARNESS_PROBE_THAT(macro, abort, arg, matcher)                                                           \
    do {                                                                                                         \
        try {                                                                                                    \
            ::harness_probe::that(arg, matcher, HARNESS_PROBE_SITE(macro, #arg ", " #matcher, abort));           \
        } catch (const ::harness_probe::AbortCase&) {                                                            \
            throw;                                                                                               \
        } catch (...) {                                                                                          \
            ::harness_probe::raised(HARNESS_PROBE_SITE(macro, #arg ", " #matcher, abort));                       \
        }                                                                                                        \
    } while (false)

#define REQUIRE(...) HARNESS_PROBE_ASSERT("REQUIRE", true, false, __VA_ARGS__)
#define REQUIRE_FALSE(...) HARNESS_PROBE_ASSERT("REQUIRE_FALSE", true, true, __VA_ARGS__)
#define REQUIRE_THROWS(...) HARNESS_PROBE_THROWS("REQUIRE_THROWS", true, __VA_ARGS__)
#define REQUIRE_THROWS_AS(expr, type) HARNESS_PROBE_THROWS_AS("REQUIRE_THROWS_AS", true, expr, type)
#define REQUIRE_NOTHROW(...) HARNESS_PROBE_NOTHROW("REQUIRE_NOTHROW", true, __VA_ARGS__)
#define REQUIRE_THAT(arg, matcher) HARNESS_PROBE_THAT("REQUIRE_THAT", true, arg, matcher)
#define CHECK(...) HARNESS_PROBE_ASSERT("CHECK", false, false, __VA_ARGS__)
#define CHECK_FALSE(...) HARNESS_PROBE_ASSERT("CHECK_FALSE", false, true, __VA_ARGS__)
#define CHECK_NOFAIL(...) HARNESS_PROBE_ASSERT("CHECK_NOFAIL", false, false, __VA_ARGS__)
#define CHECK_THROWS(...) HARNESS_PROBE_THROWS("CHECK_THROWS", false, __VA_ARGS__)
#define CHECK_THROWS_AS(expr, type) HARNESS_PROBE_THROWS_AS("CHECK_THROWS_AS", false, expr, type)
#define CHECK_NOTHROW(...) HARNESS_PROBE_NOTHROW("CHECK_NOTHROW", false, __VA_ARGS__)
#define CHECK_THAT(arg, matcher) HARNESS_PROBE_THAT("CHECK_THAT", false, arg, matcher)
#define CHECKED_IF(...) if (__VA_ARGS__)
#define CHECKED_ELSE(...) if (!(__VA_ARGS__))
#define STATIC_REQUIRE(...) static_assert(__VA_ARGS__, #__VA_ARGS__)
#define STATIC_REQUIRE_FALSE(...) static_assert(!(__VA_ARGS__), "!(" #__VA_ARGS__ ")")
#define FAIL(...) ::harness_probe::failed(HARNESS_PROBE_SITE("FAIL", "", true))
#define FAIL_CHECK(...) ::harness_probe::failed(HARNESS_PROBE_SITE("FAIL_CHECK", "", false))
#define SUCCEED(...) static_cast<void>(0)
#define INFO(msg) static_cast<void>(::harness_probe::Discard() << msg)
#define UNSCOPED_INFO(msg) INFO(msg)
#define WARN(msg) INFO(msg)
// Names for an enum's values in messages; the probe records an enum by its value.
#define CATCH_REGISTER_ENUM(...)
#define CAPTURE(...) static_cast<void>(::harness_probe::Discard() << (__VA_ARGS__))

#if defined(CATCH_CONFIG_MAIN)
int main() { return ::harness_probe::run_all(); }
#endif

#endif  // HARNESS_PROBE_CATCH_STANDIN_HPP
