#pragma once

#include <boost/date_time/gregorian/gregorian.hpp>

namespace meetup {

class scheduler {
    using date = boost::gregorian::date;
    using weekday = boost::date_time::weekdays;

public:
    scheduler(date::month_type month, date::year_type year) : month_{month}, year_{year} {}

    date monteenth() const { return teenth(weekday::Monday); }
    date tuesteenth() const { return teenth(weekday::Tuesday); }
    date wednesteenth() const { return teenth(weekday::Wednesday); }
    date thursteenth() const { return teenth(weekday::Thursday); }
    date friteenth() const { return teenth(weekday::Friday); }
    date saturteenth() const { return teenth(weekday::Saturday); }
    date sunteenth() const { return teenth(weekday::Sunday); }

    date first_monday() const { return nth(1, weekday::Monday); }
    date first_tuesday() const { return nth(1, weekday::Tuesday); }
    date first_wednesday() const { return nth(1, weekday::Wednesday); }
    date first_thursday() const { return nth(1, weekday::Thursday); }
    date first_friday() const { return nth(1, weekday::Friday); }
    date first_saturday() const { return nth(1, weekday::Saturday); }
    date first_sunday() const { return nth(1, weekday::Sunday); }

    date second_monday() const { return nth(2, weekday::Monday); }
    date second_tuesday() const { return nth(2, weekday::Tuesday); }
    date second_wednesday() const { return nth(2, weekday::Wednesday); }
    date second_thursday() const { return nth(2, weekday::Thursday); }
    date second_friday() const { return nth(2, weekday::Friday); }
    date second_saturday() const { return nth(2, weekday::Saturday); }
    date second_sunday() const { return nth(2, weekday::Sunday); }

    date third_monday() const { return nth(3, weekday::Monday); }
    date third_tuesday() const { return nth(3, weekday::Tuesday); }
    date third_wednesday() const { return nth(3, weekday::Wednesday); }
    date third_thursday() const { return nth(3, weekday::Thursday); }
    date third_friday() const { return nth(3, weekday::Friday); }
    date third_saturday() const { return nth(3, weekday::Saturday); }
    date third_sunday() const { return nth(3, weekday::Sunday); }

    date fourth_monday() const { return nth(4, weekday::Monday); }
    date fourth_tuesday() const { return nth(4, weekday::Tuesday); }
    date fourth_wednesday() const { return nth(4, weekday::Wednesday); }
    date fourth_thursday() const { return nth(4, weekday::Thursday); }
    date fourth_friday() const { return nth(4, weekday::Friday); }
    date fourth_saturday() const { return nth(4, weekday::Saturday); }
    date fourth_sunday() const { return nth(4, weekday::Sunday); }

    date last_monday() const { return last(weekday::Monday); }
    date last_tuesday() const { return last(weekday::Tuesday); }
    date last_wednesday() const { return last(weekday::Wednesday); }
    date last_thursday() const { return last(weekday::Thursday); }
    date last_friday() const { return last(weekday::Friday); }
    date last_saturday() const { return last(weekday::Saturday); }
    date last_sunday() const { return last(weekday::Sunday); }

private:
    date teenth(weekday day) const;
    date nth(int week, weekday day) const;
    date last(weekday day) const;

    date::month_type month_;
    date::year_type year_;
};

}  // namespace meetup
