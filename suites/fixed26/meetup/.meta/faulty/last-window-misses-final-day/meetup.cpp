#include "meetup.h"

namespace meetup {

namespace {

using boost::gregorian::date;

// Every question comes down to: the first such weekday within a seven-day window.
date first_on_or_after(const date& start, boost::date_time::weekdays day) {
    return start + boost::gregorian::days((day - start.day_of_week() + 7) % 7);
}

}  // namespace

date scheduler::teenth(weekday day) const { return first_on_or_after(date{year_, month_, 13}, day); }

date scheduler::nth(int week, weekday day) const {
    return first_on_or_after(date{year_, month_, 1} + boost::gregorian::days(7 * (week - 1)), day);
}

date scheduler::last(weekday day) const {
    return first_on_or_after(date{year_, month_, 1}.end_of_month() - boost::gregorian::days(7), day);
}

}  // namespace meetup
