// The probe runtime: what the harness links into a candidate's program to watch it, not to
// judge it. A probe program is a list of cases (a verifier's calls, or a test file's test
// cases); running it writes, for each case, the values the code under test produced, as
// JSON text, one framed record per observation, to file descriptor 4:
//
//     probe 1 <number of cases>
//     case <i> <case name in hex>
//     rec <i> <j> <JSON>            j = 0, 1, ... within case i
//     end <i> <number of records>
//     done <number of cases>
//
// Nothing here decides whether a value is right: the harness reads the stream in its own
// process and compares it with what the reference solution produced (harness/languages/cpp/probe/).
// Control flow follows the test framework's (a failed REQUIRE ends its test case), which
// can only take records away from a candidate, never add one.
#ifndef HARNESS_PROBE_HPP
#define HARNESS_PROBE_HPP
#pragma GCC system_header

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <exception>
#include <iterator>
#include <memory>
#include <new>
#include <optional>
#include <ostream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <tuple>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <variant>
#include <vector>

#include <unistd.h>

namespace harness_probe {

// --- values as JSON text -----------------------------------------------------------------

namespace detail {

template <class T, class = void>
struct iterable : std::false_type {};
template <class T>
struct iterable<T, std::void_t<decltype(std::begin(std::declval<const T&>())), decltype(std::end(std::declval<const T&>()))>>
    : std::true_type {};

template <class T, class = void>
struct streamable : std::false_type {};
template <class T>
struct streamable<T, std::void_t<decltype(std::declval<std::ostream&>() << std::declval<const T&>())>> : std::true_type {};

template <class T, class = void>
struct tuple_like : std::false_type {};
template <class T>
struct tuple_like<T, std::void_t<decltype(std::tuple_size<T>::value)>> : std::true_type {};

template <class T, class = void>
struct hashed : std::false_type {};
template <class T>
struct hashed<T, std::void_t<typename T::hasher>> : std::true_type {};

template <class T>
struct optional_type : std::false_type {};
template <class T>
struct optional_type<std::optional<T>> : std::true_type {};

template <class T>
struct variant_type : std::false_type {};
template <class... T>
struct variant_type<std::variant<T...>> : std::true_type {};

template <class T>
struct smart_pointer : std::false_type {};
template <class T, class D>
struct smart_pointer<std::unique_ptr<T, D>> : std::true_type {};
template <class T>
struct smart_pointer<std::shared_ptr<T>> : std::true_type {};

template <class T>
using bare = std::remove_cv_t<std::remove_reference_t<T>>;

template <class T>
constexpr bool is_text = std::is_same_v<T, std::string> || std::is_same_v<T, std::string_view>;

template <class T>
constexpr bool is_char_array = std::is_array_v<T> && std::is_same_v<std::remove_cv_t<std::remove_extent_t<T>>, char>;

template <class T>
constexpr bool is_char_pointer = std::is_pointer_v<T> && std::is_same_v<std::remove_cv_t<std::remove_pointer_t<T>>, char>;

template <class T>
struct always_false : std::false_type {};

}  // namespace detail

template <class T>
constexpr bool encodable_bare();

// Whether the probe can write a value of type T, tested in the order in which encode()
// picks a form.
template <class T>
constexpr bool can_encode = encodable_bare<detail::bare<T>>();

namespace detail {

template <class T, std::size_t... I>
constexpr bool tuple_encodable(std::index_sequence<I...>) {
    return (can_encode<std::tuple_element_t<I, T>> && ...);
}

template <class T>
struct variant_encodable : std::false_type {};
template <class... U>
struct variant_encodable<std::variant<U...>> : std::bool_constant<(can_encode<U> && ...)> {};

}  // namespace detail

template <class T>
constexpr bool encodable_bare() {
    if constexpr (std::is_arithmetic_v<T> || std::is_enum_v<T> || std::is_same_v<T, std::nullptr_t> ||
                  detail::is_text<T> || detail::is_char_array<T> || std::is_pointer_v<T> ||
                  detail::smart_pointer<T>::value) {
        return true;
    } else if constexpr (detail::optional_type<T>::value) {
        return can_encode<typename T::value_type>;
    } else if constexpr (detail::variant_type<T>::value) {
        return detail::variant_encodable<T>::value;
    } else if constexpr (detail::iterable<T>::value) {
        return can_encode<decltype(*std::begin(std::declval<const T&>()))>;
    } else if constexpr (detail::tuple_like<T>::value) {
        return detail::tuple_encodable<T>(std::make_index_sequence<std::tuple_size<T>::value>{});
    } else {
        return detail::streamable<T>::value;
    }
}

inline void put_text(std::string& out, const char* data, std::size_t size) {
    static const char kHex[] = "0123456789abcdef";
    out += '"';
    for (std::size_t i = 0; i < size; ++i) {
        const unsigned char c = static_cast<unsigned char>(data[i]);
        if (c == '"' || c == '\\') {
            out += '\\';
            out += static_cast<char>(c);
        } else if (c < 0x20 || c >= 0x7f) {
            // Bytes, not characters: the harness reads each as the code point of that value.
            out += "\\u00";
            out += kHex[c >> 4];
            out += kHex[c & 15];
        } else {
            out += static_cast<char>(c);
        }
    }
    out += '"';
}

inline void put_float(std::string& out, long double value) {
    if (std::isnan(value)) {
        out += "{\"float\":\"nan\"}";
    } else if (std::isinf(value)) {
        out += value > 0 ? "{\"float\":\"inf\"}" : "{\"float\":\"-inf\"}";
    } else {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.17Lg", value);
        out += buf;
    }
}

template <class T>
void encode(std::string& out, const T& value);

namespace detail {

template <class T, std::size_t... I>
void encode_tuple(std::string& out, const T& value, std::index_sequence<I...>) {
    out += '[';
    std::size_t n = 0;
    ((out += (n++ ? "," : ""), encode(out, std::get<I>(value))), ...);
    out += ']';
}

}  // namespace detail

template <class T>
void encode(std::string& out, const T& value) {
    using U = detail::bare<T>;
    if constexpr (std::is_same_v<U, bool>) {
        out += value ? "true" : "false";
    } else if constexpr (std::is_same_v<U, char>) {
        put_text(out, &value, 1);
    } else if constexpr (std::is_enum_v<U>) {
        encode(out, static_cast<std::underlying_type_t<U>>(value));
    } else if constexpr (std::is_integral_v<U> && std::is_signed_v<U>) {
        out += std::to_string(static_cast<long long>(value));
    } else if constexpr (std::is_integral_v<U>) {
        out += std::to_string(static_cast<unsigned long long>(value));
    } else if constexpr (std::is_floating_point_v<U>) {
        put_float(out, static_cast<long double>(value));
    } else if constexpr (std::is_same_v<U, std::nullptr_t>) {
        out += "null";
    } else if constexpr (detail::is_text<U>) {
        put_text(out, value.data(), value.size());
    } else if constexpr (detail::is_char_array<U>) {
        put_text(out, value, strnlen(value, std::extent_v<U>));
    } else if constexpr (detail::is_char_pointer<U>) {
        if (value == nullptr) {
            out += "null";
        } else {
            put_text(out, value, std::strlen(value));
        }
    } else if constexpr (std::is_pointer_v<U> || detail::smart_pointer<U>::value) {
        // An address means nothing in another process; whether there is one does.
        out += value ? "{\"pointer\":\"set\"}" : "null";
    } else if constexpr (detail::optional_type<U>::value) {
        if (value) {
            encode(out, *value);
        } else {
            out += "null";
        }
    } else if constexpr (detail::variant_type<U>::value) {
        std::visit([&out](const auto& held) { encode(out, held); }, value);
    } else if constexpr (detail::iterable<U>::value) {
        if constexpr (detail::hashed<U>::value) {
            // A hash container's order is its own business: the same elements, sorted by
            // their text, read the same whatever the hash function.
            std::vector<std::string> parts;
            for (const auto& element : value) {
                std::string one;
                encode(one, element);
                parts.push_back(std::move(one));
            }
            std::sort(parts.begin(), parts.end());
            out += '[';
            for (std::size_t i = 0; i < parts.size(); ++i) out += (i ? "," : "") + parts[i];
            out += ']';
        } else {
            out += '[';
            bool first = true;
            for (const auto& element : value) {
                if (!first) out += ',';
                first = false;
                encode(out, element);
            }
            out += ']';
        }
    } else if constexpr (detail::tuple_like<U>::value) {
        detail::encode_tuple(out, value, std::make_index_sequence<std::tuple_size<U>::value>{});
    } else if constexpr (detail::streamable<U>::value) {
        std::ostringstream text;
        text << value;
        const std::string s = text.str();
        out += "{\"text\":";
        put_text(out, s.data(), s.size());
        out += '}';
    } else {
        static_assert(detail::always_false<U>::value,
                      "the probe cannot record a value of this type: observe something it can write "
                      "(numbers, text, containers, pairs, tuples, optionals, or a type with operator<<)");
    }
}

template <class T>
std::string json(const T& value) {
    std::string out;
    encode(out, value);
    return out;
}

inline std::string json_text(const char* text) {
    std::string out;
    put_text(out, text, std::strlen(text));
    return out;
}

// The most derived standard exception type an exception is an instance of (the harness
// compares exceptions by type, never by message, which is free text).
inline const char* exception_type(std::exception_ptr error) {
    try {
        std::rethrow_exception(error);
    } catch (const std::domain_error&) {
        return "std::domain_error";
    } catch (const std::invalid_argument&) {
        return "std::invalid_argument";
    } catch (const std::length_error&) {
        return "std::length_error";
    } catch (const std::out_of_range&) {
        return "std::out_of_range";
    } catch (const std::logic_error&) {
        return "std::logic_error";
    } catch (const std::range_error&) {
        return "std::range_error";
    } catch (const std::overflow_error&) {
        return "std::overflow_error";
    } catch (const std::underflow_error&) {
        return "std::underflow_error";
    } catch (const std::system_error&) {
        return "std::system_error";
    } catch (const std::runtime_error&) {
        return "std::runtime_error";
    } catch (const std::bad_optional_access&) {
        return "std::bad_optional_access";
    } catch (const std::bad_variant_access&) {
        return "std::bad_variant_access";
    } catch (const std::bad_cast&) {
        return "std::bad_cast";
    } catch (const std::bad_typeid&) {
        return "std::bad_typeid";
    } catch (const std::bad_weak_ptr&) {
        return "std::bad_weak_ptr";
    } catch (const std::bad_array_new_length&) {
        return "std::bad_array_new_length";
    } catch (const std::bad_alloc&) {
        return "std::bad_alloc";
    } catch (const std::bad_exception&) {
        return "std::bad_exception";
    } catch (const std::exception&) {
        return "std::exception";
    } catch (...) {
        return "not a std::exception";
    }
}

// --- the stream --------------------------------------------------------------------------

constexpr int kChannel = 4;

inline void emit(const std::string& line) {
    const char* data = line.data();
    std::size_t left = line.size();
    while (left > 0) {
        const ssize_t n = ::write(kChannel, data, left);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return;  // the channel is gone: the harness sees a short stream
        data += n;
        left -= static_cast<std::size_t>(n);
    }
}

// A case's body: a test case's function, or a call wrapped by the generated driver.
struct CaseEntry {
    std::string name;
    void (*run)();
};

inline std::vector<CaseEntry>& cases() {
    static std::vector<CaseEntry> all;
    return all;
}

struct Registrar {
    Registrar(const char* name, void (*run)()) { cases().push_back(CaseEntry{name, run}); }
};

struct Position {
    std::size_t index = 0;
    std::size_t records = 0;
};

inline Position& position() {
    static Position where;
    return where;
}

inline void record(const std::string& json) {
    Position& at = position();
    emit("rec " + std::to_string(at.index) + " " + std::to_string(at.records++) + " " + json + "\n");
}

// Thrown by a failed REQUIRE: it ends the test case's current pass, as the framework does.
struct AbortCase {};

// --- sections: each pass through a test case enters one not yet finished leaf ------------

class Sections {
public:
    void begin_pass() {
        stack_.clear();
        entered_.assign(1, false);
        pending_.assign(1, false);
        more_ = false;
    }

    bool enter(const std::string& name) {
        std::vector<std::string> path = stack_;
        path.push_back(name);
        if (finished_.count(path)) return false;
        if (entered_.back()) {
            pending_.back() = true;
            more_ = true;
            return false;
        }
        entered_.back() = true;
        stack_.push_back(name);
        entered_.push_back(false);
        pending_.push_back(false);
        return true;
    }

    void leave() {
        const bool pending = pending_.back();
        entered_.pop_back();
        pending_.pop_back();
        if (!pending) finished_.insert(stack_);
        stack_.pop_back();
    }

    bool more() const { return more_; }
    void reset() { finished_.clear(); }

private:
    std::set<std::vector<std::string>> finished_;
    std::vector<std::string> stack_;
    std::vector<bool> entered_, pending_;
    bool more_ = false;
};

inline Sections& sections() {
    static Sections tracker;
    return tracker;
}

class Section {
public:
    explicit Section(const std::string& name, const std::string& = "") : entered_(sections().enter(name)) {}
    ~Section() {
        if (entered_) sections().leave();
    }
    Section(const Section&) = delete;
    Section& operator=(const Section&) = delete;
    explicit operator bool() const { return entered_; }

private:
    bool entered_;
};

inline void run_case(void (*body)()) {
    Sections& tracker = sections();
    tracker.reset();
    for (int pass = 0; pass < 10000; ++pass) {
        tracker.begin_pass();
        try {
            body();
        } catch (const AbortCase&) {
        } catch (...) {
            record("{\"k\":\"escaped\",\"x\":" + json_text(exception_type(std::current_exception())) + "}");
        }
        if (!tracker.more()) return;
    }
}

inline std::string hex(const std::string& bytes) {
    static const char kDigits[] = "0123456789abcdef";
    std::string out;
    for (unsigned char c : bytes) {
        out += kDigits[c >> 4];
        out += kDigits[c & 15];
    }
    return out;
}

inline int run_all() {
    const std::vector<CaseEntry>& all = cases();
    const std::string count = std::to_string(all.size());
    emit("probe 1 " + count + "\n");
    for (std::size_t i = 0; i < all.size(); ++i) {
        position() = Position{i, 0};
        emit("case " + std::to_string(i) + " " + hex(all[i].name) + "\n");
        run_case(all[i].run);
        emit("end " + std::to_string(i) + " " + std::to_string(position().records) + "\n");
    }
    emit("done " + count + "\n");
    return 0;
}

// --- calls: a verifier's inputs, each observed value an outcome ---------------------------

// `(expression, VoidMarker{})` is the expression's value when it has one (this operator)
// and the marker itself when the expression is void (the built-in comma).
struct VoidMarker {};

template <class T>
struct Held {
    const T& value;
};

template <class T>
Held<T> operator,(const T& value, VoidMarker) {
    return Held<T>{value};
}

class Call {
public:
    template <class Body>
    void observe(Body body) {
        std::string outcome;
        try {
            current_ = &outcome;
            body();
        } catch (...) {
            outcome = "{\"x\":" + json_text(exception_type(std::current_exception())) + "}";
        }
        current_ = nullptr;
        outcomes_.push_back(outcome);
    }

    template <class T>
    void put(const Held<T>& held) {
        static_assert(can_encode<T>,
                      "the probe cannot record a value of this type: observe something it can write "
                      "(numbers, text, containers, pairs, tuples, optionals, or a type with operator<<)");
        *current_ = "{\"v\":" + json(held.value) + "}";
    }

    void put(VoidMarker) { *current_ = "{\"v\":null}"; }

    std::string record(const char* thrown) const {
        std::string out = "{\"o\":[";
        for (std::size_t i = 0; i < outcomes_.size(); ++i) out += (i ? "," : "") + outcomes_[i];
        out += "]";
        if (thrown != nullptr) out += std::string(",\"x\":") + json_text(thrown);
        return out + "}";
    }

private:
    std::vector<std::string> outcomes_;
    std::string* current_ = nullptr;
};

// One call: its statements and observations in order; a statement that throws ends it.
inline void run_call(void (*body)(Call&)) {
    Call call;
    try {
        body(call);
    } catch (...) {
        record(call.record(exception_type(std::current_exception())));
        return;
    }
    record(call.record(nullptr));
}

}  // namespace harness_probe

#endif  // HARNESS_PROBE_HPP
