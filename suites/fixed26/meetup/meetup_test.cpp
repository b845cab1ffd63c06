#include "meetup.h"

#include <catch2/catch.hpp>

using boost::gregorian::date;

TEST_CASE("when teenth Monday is the 13th, the first day of the teenth week", "[d7f8eadd-d4fc-46ee-8a20-e97bd3fd01c8]") {
    const meetup::scheduler schedule{boost::gregorian::May, 2013};
    REQUIRE(schedule.monteenth() == date{2013, boost::gregorian::May, 13});
}

#if defined(EXERCISM_RUN_ALL_TESTS)

TEST_CASE("when teenth Monday is the 19th, the last day of the teenth week", "[f78373d1-cd53-4a7f-9d37-e15bf8a456b4]") {
    const meetup::scheduler schedule{boost::gregorian::Aug, 2013};
    REQUIRE(schedule.monteenth() == date{2013, boost::gregorian::Aug, 19});
}

TEST_CASE("when teenth Monday is some day in the middle of the teenth week", "[8c78bea7-a116-425b-9c6b-c9898266d92a]") {
    const meetup::scheduler schedule{boost::gregorian::Sep, 2013};
    REQUIRE(schedule.monteenth() == date{2013, boost::gregorian::Sep, 16});
}

TEST_CASE("when teenth Tuesday is the 19th, the last day of the teenth week", "[cfef881b-9dc9-4d0b-8de4-82d0f39fc271]") {
    const meetup::scheduler schedule{boost::gregorian::Mar, 2013};
    REQUIRE(schedule.tuesteenth() == date{2013, boost::gregorian::Mar, 19});
}

TEST_CASE("when teenth Tuesday is some day in the middle of the teenth week", "[69048961-3b00-41f9-97ee-eb6d83a8e92b]") {
    const meetup::scheduler schedule{boost::gregorian::Apr, 2013};
    REQUIRE(schedule.tuesteenth() == date{2013, boost::gregorian::Apr, 16});
}

TEST_CASE("when teenth Tuesday is the 13th, the first day of the teenth week", "[d30bade8-3622-466a-b7be-587414e0caa6]") {
    const meetup::scheduler schedule{boost::gregorian::Aug, 2013};
    REQUIRE(schedule.tuesteenth() == date{2013, boost::gregorian::Aug, 13});
}

TEST_CASE("when teenth Wednesday is some day in the middle of the teenth week", "[8db4b58b-92f3-4687-867b-82ee1a04f851]") {
    const meetup::scheduler schedule{boost::gregorian::Jan, 2013};
    REQUIRE(schedule.wednesteenth() == date{2013, boost::gregorian::Jan, 16});
}

TEST_CASE("when teenth Wednesday is the 13th, the first day of the teenth week", "[6c27a2a2-28f8-487f-ae81-35d08c4664f7]") {
    const meetup::scheduler schedule{boost::gregorian::Feb, 2013};
    REQUIRE(schedule.wednesteenth() == date{2013, boost::gregorian::Feb, 13});
}

TEST_CASE("when teenth Wednesday is the 19th, the last day of the teenth week", "[008a8674-1958-45b5-b8e6-c2c9960d973a]") {
    const meetup::scheduler schedule{boost::gregorian::Jun, 2013};
    REQUIRE(schedule.wednesteenth() == date{2013, boost::gregorian::Jun, 19});
}

TEST_CASE("when teenth Thursday is some day in the middle of the teenth week", "[e4abd5e3-57cb-4091-8420-d97e955c0dbd]") {
    const meetup::scheduler schedule{boost::gregorian::May, 2013};
    REQUIRE(schedule.thursteenth() == date{2013, boost::gregorian::May, 16});
}

TEST_CASE("when teenth Thursday is the 13th, the first day of the teenth week", "[85da0b0f-eace-4297-a6dd-63588d5055b4]") {
    const meetup::scheduler schedule{boost::gregorian::Jun, 2013};
    REQUIRE(schedule.thursteenth() == date{2013, boost::gregorian::Jun, 13});
}

TEST_CASE("when teenth Thursday is the 19th, the last day of the teenth week", "[ecf64f9b-8413-489b-bf6e-128045f70bcc]") {
    const meetup::scheduler schedule{boost::gregorian::Sep, 2013};
    REQUIRE(schedule.thursteenth() == date{2013, boost::gregorian::Sep, 19});
}

TEST_CASE("when teenth Friday is the 19th, the last day of the teenth week", "[ac4e180c-7d0a-4d3d-b05f-f564ebb584ca]") {
    const meetup::scheduler schedule{boost::gregorian::Apr, 2013};
    REQUIRE(schedule.friteenth() == date{2013, boost::gregorian::Apr, 19});
}

TEST_CASE("when teenth Friday is some day in the middle of the teenth week", "[b79101c7-83ad-4f8f-8ec8-591683296315]") {
    const meetup::scheduler schedule{boost::gregorian::Aug, 2013};
    REQUIRE(schedule.friteenth() == date{2013, boost::gregorian::Aug, 16});
}

TEST_CASE("when teenth Friday is the 13th, the first day of the teenth week", "[6ed38b9f-0072-4901-bd97-7c8b8b0ef1b8]") {
    const meetup::scheduler schedule{boost::gregorian::Sep, 2013};
    REQUIRE(schedule.friteenth() == date{2013, boost::gregorian::Sep, 13});
}

TEST_CASE("when teenth Saturday is some day in the middle of the teenth week", "[dfae03ed-9610-47de-a632-655ab01e1e7c]") {
    const meetup::scheduler schedule{boost::gregorian::Feb, 2013};
    REQUIRE(schedule.saturteenth() == date{2013, boost::gregorian::Feb, 16});
}

TEST_CASE("when teenth Saturday is the 19th, the last day of the teenth week", "[d983094b-7259-4195-b84e-5d09578c89d9]") {
    const meetup::scheduler schedule{boost::gregorian::Oct, 2013};
    REQUIRE(schedule.saturteenth() == date{2013, boost::gregorian::Oct, 19});
}

TEST_CASE("when teenth Sunday is the 19th, the last day of the teenth week", "[d84a2a2e-f745-443a-9368-30051be60c2e]") {
    const meetup::scheduler schedule{boost::gregorian::May, 2013};
    REQUIRE(schedule.sunteenth() == date{2013, boost::gregorian::May, 19});
}

TEST_CASE("when teenth Sunday is some day in the middle of the teenth week", "[0e64bc53-92a3-4f61-85b2-0b7168c7ce5a]") {
    const meetup::scheduler schedule{boost::gregorian::Jun, 2013};
    REQUIRE(schedule.sunteenth() == date{2013, boost::gregorian::Jun, 16});
}

TEST_CASE("when teenth Sunday is the 13th, the first day of the teenth week", "[de87652c-185e-4854-b3ae-04cf6150eead]") {
    const meetup::scheduler schedule{boost::gregorian::Oct, 2013};
    REQUIRE(schedule.sunteenth() == date{2013, boost::gregorian::Oct, 13});
}

TEST_CASE("when first Monday is some day in the middle of the first week", "[2cbfd0f5-ba3a-46da-a8cc-0fe4966d3411]") {
    const meetup::scheduler schedule{boost::gregorian::Mar, 2013};
    REQUIRE(schedule.first_monday() == date{2013, boost::gregorian::Mar, 4});
}

TEST_CASE("when first Monday is the 1st, the first day of the first week", "[a6168c7c-ed95-4bb3-8f92-c72575fc64b0]") {
    const meetup::scheduler schedule{boost::gregorian::Apr, 2013};
    REQUIRE(schedule.first_monday() == date{2013, boost::gregorian::Apr, 1});
}

TEST_CASE("when first Tuesday is the 7th, the last day of the first week", "[1bfc620f-1c54-4bbd-931f-4a1cd1036c20]") {
    const meetup::scheduler schedule{boost::gregorian::May, 2013};
    REQUIRE(schedule.first_tuesday() == date{2013, boost::gregorian::May, 7});
}

TEST_CASE("when first Tuesday is some day in the middle of the first week", "[12959c10-7362-4ca0-a048-50cf1c06e3e2]") {
    const meetup::scheduler schedule{boost::gregorian::Jun, 2013};
    REQUIRE(schedule.first_tuesday() == date{2013, boost::gregorian::Jun, 4});
}

TEST_CASE("when first Wednesday is some day in the middle of the first week", "[1033dc66-8d0b-48a1-90cb-270703d59d1d]") {
    const meetup::scheduler schedule{boost::gregorian::Jul, 2013};
    REQUIRE(schedule.first_wednesday() == date{2013, boost::gregorian::Jul, 3});
}

TEST_CASE("when first Wednesday is the 7th, the last day of the first week", "[b89185b9-2f32-46f4-a602-de20b09058f6]") {
    const meetup::scheduler schedule{boost::gregorian::Aug, 2013};
    REQUIRE(schedule.first_wednesday() == date{2013, boost::gregorian::Aug, 7});
}

TEST_CASE("when first Thursday is some day in the middle of the first week", "[53aedc4d-b2c8-4dfb-abf7-a8dc9cdceed5]") {
    const meetup::scheduler schedule{boost::gregorian::Sep, 2013};
    REQUIRE(schedule.first_thursday() == date{2013, boost::gregorian::Sep, 5});
}

TEST_CASE("when first Thursday is another day in the middle of the first week", "[b420a7e3-a94c-4226-870a-9eb3a92647f0]") {
    const meetup::scheduler schedule{boost::gregorian::Oct, 2013};
    REQUIRE(schedule.first_thursday() == date{2013, boost::gregorian::Oct, 3});
}

TEST_CASE("when first Friday is the 1st, the first day of the first week", "[61df3270-28b4-4713-bee2-566fa27302ca]") {
    const meetup::scheduler schedule{boost::gregorian::Nov, 2013};
    REQUIRE(schedule.first_friday() == date{2013, boost::gregorian::Nov, 1});
}

TEST_CASE("when first Friday is some day in the middle of the first week", "[cad33d4d-595c-412f-85cf-3874c6e07abf]") {
    const meetup::scheduler schedule{boost::gregorian::Dec, 2013};
    REQUIRE(schedule.first_friday() == date{2013, boost::gregorian::Dec, 6});
}

TEST_CASE("when first Saturday is some day in the middle of the first week", "[a2869b52-5bba-44f0-a863-07bd1f67eadb]") {
    const meetup::scheduler schedule{boost::gregorian::Jan, 2013};
    REQUIRE(schedule.first_saturday() == date{2013, boost::gregorian::Jan, 5});
}

TEST_CASE("when first Saturday is another day in the middle of the first week", "[3585315a-d0db-4ea1-822e-0f22e2a645f5]") {
    const meetup::scheduler schedule{boost::gregorian::Feb, 2013};
    REQUIRE(schedule.first_saturday() == date{2013, boost::gregorian::Feb, 2});
}

TEST_CASE("when first Sunday is some day in the middle of the first week", "[c49e9bd9-8ccf-4cf2-947a-0ccd4e4f10b1]") {
    const meetup::scheduler schedule{boost::gregorian::Mar, 2013};
    REQUIRE(schedule.first_sunday() == date{2013, boost::gregorian::Mar, 3});
}

TEST_CASE("when first Sunday is the 7th, the last day of the first week", "[1513328b-df53-4714-8677-df68c4f9366c]") {
    const meetup::scheduler schedule{boost::gregorian::Apr, 2013};
    REQUIRE(schedule.first_sunday() == date{2013, boost::gregorian::Apr, 7});
}

TEST_CASE("when second Monday is some day in the middle of the second week", "[49e083af-47ec-4018-b807-62ef411efed7]") {
    const meetup::scheduler schedule{boost::gregorian::Mar, 2013};
    REQUIRE(schedule.second_monday() == date{2013, boost::gregorian::Mar, 11});
}

TEST_CASE("when second Monday is the 8th, the first day of the second week", "[6cb79a73-38fe-4475-9101-9eec36cf79e5]") {
    const meetup::scheduler schedule{boost::gregorian::Apr, 2013};
    REQUIRE(schedule.second_monday() == date{2013, boost::gregorian::Apr, 8});
}

TEST_CASE("when second Tuesday is the 14th, the last day of the second week", "[4c39b594-af7e-4445-aa03-bf4f8effd9a1]") {
    const meetup::scheduler schedule{boost::gregorian::May, 2013};
    REQUIRE(schedule.second_tuesday() == date{2013, boost::gregorian::May, 14});
}

TEST_CASE("when second Tuesday is some day in the middle of the second week", "[41b32c34-2e39-40e3-b790-93539aaeb6dd]") {
    const meetup::scheduler schedule{boost::gregorian::Jun, 2013};
    REQUIRE(schedule.second_tuesday() == date{2013, boost::gregorian::Jun, 11});
}

TEST_CASE("when second Wednesday is some day in the middle of the second week", "[90a160c5-b5d9-4831-927f-63a78b17843d]") {
    const meetup::scheduler schedule{boost::gregorian::Jul, 2013};
    REQUIRE(schedule.second_wednesday() == date{2013, boost::gregorian::Jul, 10});
}

TEST_CASE("when second Wednesday is the 14th, the last day of the second week", "[23b98ce7-8dd5-41a1-9310-ef27209741cb]") {
    const meetup::scheduler schedule{boost::gregorian::Aug, 2013};
    REQUIRE(schedule.second_wednesday() == date{2013, boost::gregorian::Aug, 14});
}

TEST_CASE("when second Thursday is some day in the middle of the second week", "[447f1960-27ca-4729-bc3f-f36043f43ed0]") {
    const meetup::scheduler schedule{boost::gregorian::Sep, 2013};
    REQUIRE(schedule.second_thursday() == date{2013, boost::gregorian::Sep, 12});
}

TEST_CASE("when second Thursday is another day in the middle of the second week", "[c9aa2687-300c-4e79-86ca-077849a81bde]") {
    const meetup::scheduler schedule{boost::gregorian::Oct, 2013};
    REQUIRE(schedule.second_thursday() == date{2013, boost::gregorian::Oct, 10});
}

TEST_CASE("when second Friday is the 8th, the first day of the second week", "[a7e11ef3-6625-4134-acda-3e7195421c09]") {
    const meetup::scheduler schedule{boost::gregorian::Nov, 2013};
    REQUIRE(schedule.second_friday() == date{2013, boost::gregorian::Nov, 8});
}

TEST_CASE("when second Friday is some day in the middle of the second week", "[8b420e5f-9290-4106-b5ae-022f3e2a3e41]") {
    const meetup::scheduler schedule{boost::gregorian::Dec, 2013};
    REQUIRE(schedule.second_friday() == date{2013, boost::gregorian::Dec, 13});
}

TEST_CASE("when second Saturday is some day in the middle of the second week", "[80631afc-fc11-4546-8b5f-c12aaeb72b4f]") {
    const meetup::scheduler schedule{boost::gregorian::Jan, 2013};
    REQUIRE(schedule.second_saturday() == date{2013, boost::gregorian::Jan, 12});
}

TEST_CASE("when second Saturday is another day in the middle of the second week", "[e34d43ac-f470-44c2-aa5f-e97b78ecaf83]") {
    const meetup::scheduler schedule{boost::gregorian::Feb, 2013};
    REQUIRE(schedule.second_saturday() == date{2013, boost::gregorian::Feb, 9});
}

TEST_CASE("when second Sunday is some day in the middle of the second week", "[a57d59fd-1023-47ad-b0df-a6feb21b44fc]") {
    const meetup::scheduler schedule{boost::gregorian::Mar, 2013};
    REQUIRE(schedule.second_sunday() == date{2013, boost::gregorian::Mar, 10});
}

TEST_CASE("when second Sunday is the 14th, the last day of the second week", "[a829a8b0-abdd-4ad1-b66c-5560d843c91a]") {
    const meetup::scheduler schedule{boost::gregorian::Apr, 2013};
    REQUIRE(schedule.second_sunday() == date{2013, boost::gregorian::Apr, 14});
}

TEST_CASE("when third Monday is some day in the middle of the third week", "[501a8a77-6038-4fc0-b74c-33634906c29d]") {
    const meetup::scheduler schedule{boost::gregorian::Mar, 2013};
    REQUIRE(schedule.third_monday() == date{2013, boost::gregorian::Mar, 18});
}

TEST_CASE("when third Monday is the 15th, the first day of the third week", "[49e4516e-cf32-4a58-8bbc-494b7e851c92]") {
    const meetup::scheduler schedule{boost::gregorian::Apr, 2013};
    REQUIRE(schedule.third_monday() == date{2013, boost::gregorian::Apr, 15});
}

TEST_CASE("when third Tuesday is the 21st, the last day of the third week", "[4db61095-f7c7-493c-85f1-9996ad3012c7]") {
    const meetup::scheduler schedule{boost::gregorian::May, 2013};
    REQUIRE(schedule.third_tuesday() == date{2013, boost::gregorian::May, 21});
}

TEST_CASE("when third Tuesday is some day in the middle of the third week", "[714fc2e3-58d0-4b91-90fd-61eefd2892c0]") {
    const meetup::scheduler schedule{boost::gregorian::Jun, 2013};
    REQUIRE(schedule.third_tuesday() == date{2013, boost::gregorian::Jun, 18});
}

TEST_CASE("when third Wednesday is some day in the middle of the third week", "[b08a051a-2c80-445b-9b0e-524171a166d1]") {
    const meetup::scheduler schedule{boost::gregorian::Jul, 2013};
    REQUIRE(schedule.third_wednesday() == date{2013, boost::gregorian::Jul, 17});
}

TEST_CASE("when third Wednesday is the 21st, the last day of the third week", "[80bb9eff-3905-4c61-8dc9-bb03016d8ff8]") {
    const meetup::scheduler schedule{boost::gregorian::Aug, 2013};
    REQUIRE(schedule.third_wednesday() == date{2013, boost::gregorian::Aug, 21});
}

TEST_CASE("when third Thursday is some day in the middle of the third week", "[fa52a299-f77f-4784-b290-ba9189fbd9c9]") {
    const meetup::scheduler schedule{boost::gregorian::Sep, 2013};
    REQUIRE(schedule.third_thursday() == date{2013, boost::gregorian::Sep, 19});
}

TEST_CASE("when third Thursday is another day in the middle of the third week", "[f74b1bc6-cc5c-4bf1-ba69-c554a969eb38]") {
    const meetup::scheduler schedule{boost::gregorian::Oct, 2013};
    REQUIRE(schedule.third_thursday() == date{2013, boost::gregorian::Oct, 17});
}

TEST_CASE("when third Friday is the 15th, the first day of the third week", "[8900f3b0-801a-466b-a866-f42d64667abd]") {
    const meetup::scheduler schedule{boost::gregorian::Nov, 2013};
    REQUIRE(schedule.third_friday() == date{2013, boost::gregorian::Nov, 15});
}

TEST_CASE("when third Friday is some day in the middle of the third week", "[538ac405-a091-4314-9ccd-920c4e38e85e]") {
    const meetup::scheduler schedule{boost::gregorian::Dec, 2013};
    REQUIRE(schedule.third_friday() == date{2013, boost::gregorian::Dec, 20});
}

TEST_CASE("when third Saturday is some day in the middle of the third week", "[244db35c-2716-4fa0-88ce-afd58e5cf910]") {
    const meetup::scheduler schedule{boost::gregorian::Jan, 2013};
    REQUIRE(schedule.third_saturday() == date{2013, boost::gregorian::Jan, 19});
}

TEST_CASE("when third Saturday is another day in the middle of the third week", "[dd28544f-f8fa-4f06-9bcd-0ad46ce68e9e]") {
    const meetup::scheduler schedule{boost::gregorian::Feb, 2013};
    REQUIRE(schedule.third_saturday() == date{2013, boost::gregorian::Feb, 16});
}

TEST_CASE("when third Sunday is some day in the middle of the third week", "[be71dcc6-00d2-4b53-a369-cbfae55b312f]") {
    const meetup::scheduler schedule{boost::gregorian::Mar, 2013};
    REQUIRE(schedule.third_sunday() == date{2013, boost::gregorian::Mar, 17});
}

TEST_CASE("when third Sunday is the 21st, the last day of the third week", "[b7d2da84-4290-4ee6-a618-ee124ae78be7]") {
    const meetup::scheduler schedule{boost::gregorian::Apr, 2013};
    REQUIRE(schedule.third_sunday() == date{2013, boost::gregorian::Apr, 21});
}

TEST_CASE("when fourth Monday is some day in the middle of the fourth week", "[4276dc06-a1bd-4fc2-b6c2-625fee90bc88]") {
    const meetup::scheduler schedule{boost::gregorian::Mar, 2013};
    REQUIRE(schedule.fourth_monday() == date{2013, boost::gregorian::Mar, 25});
}

TEST_CASE("when fourth Monday is the 22nd, the first day of the fourth week", "[ddbd7976-2deb-4250-8a38-925ac1a8e9a2]") {
    const meetup::scheduler schedule{boost::gregorian::Apr, 2013};
    REQUIRE(schedule.fourth_monday() == date{2013, boost::gregorian::Apr, 22});
}

TEST_CASE("when fourth Tuesday is the 28th, the last day of the fourth week", "[eb714ef4-1656-47cc-913c-844dba4ebddd]") {
    const meetup::scheduler schedule{boost::gregorian::May, 2013};
    REQUIRE(schedule.fourth_tuesday() == date{2013, boost::gregorian::May, 28});
}

TEST_CASE("when fourth Tuesday is some day in the middle of the fourth week", "[16648435-7937-4d2d-b118-c3e38fd084bd]") {
    const meetup::scheduler schedule{boost::gregorian::Jun, 2013};
    REQUIRE(schedule.fourth_tuesday() == date{2013, boost::gregorian::Jun, 25});
}

TEST_CASE("when fourth Wednesday is some day in the middle of the fourth week", "[de062bdc-9484-437a-a8c5-5253c6f6785a]") {
    const meetup::scheduler schedule{boost::gregorian::Jul, 2013};
    REQUIRE(schedule.fourth_wednesday() == date{2013, boost::gregorian::Jul, 24});
}

TEST_CASE("when fourth Wednesday is the 28th, the last day of the fourth week", "[c2ce6821-169c-4832-8d37-690ef5d9514a]") {
    const meetup::scheduler schedule{boost::gregorian::Aug, 2013};
    REQUIRE(schedule.fourth_wednesday() == date{2013, boost::gregorian::Aug, 28});
}

TEST_CASE("when fourth Thursday is some day in the middle of the fourth week", "[d462c631-2894-4391-a8e3-dbb98b7a7303]") {
    const meetup::scheduler schedule{boost::gregorian::Sep, 2013};
    REQUIRE(schedule.fourth_thursday() == date{2013, boost::gregorian::Sep, 26});
}

TEST_CASE("when fourth Thursday is another day in the middle of the fourth week", "[9ff1f7b6-1b72-427d-9ee9-82b5bb08b835]") {
    const meetup::scheduler schedule{boost::gregorian::Oct, 2013};
    REQUIRE(schedule.fourth_thursday() == date{2013, boost::gregorian::Oct, 24});
}

TEST_CASE("when fourth Friday is the 22nd, the first day of the fourth week", "[83bae8ba-1c49-49bc-b632-b7c7e1d7e35f]") {
    const meetup::scheduler schedule{boost::gregorian::Nov, 2013};
    REQUIRE(schedule.fourth_friday() == date{2013, boost::gregorian::Nov, 22});
}

TEST_CASE("when fourth Friday is some day in the middle of the fourth week", "[de752d2a-a95e-48d2-835b-93363dac3710]") {
    const meetup::scheduler schedule{boost::gregorian::Dec, 2013};
    REQUIRE(schedule.fourth_friday() == date{2013, boost::gregorian::Dec, 27});
}

TEST_CASE("when fourth Saturday is some day in the middle of the fourth week", "[eedd90ad-d581-45db-8312-4c6dcf9cf560]") {
    const meetup::scheduler schedule{boost::gregorian::Jan, 2013};
    REQUIRE(schedule.fourth_saturday() == date{2013, boost::gregorian::Jan, 26});
}

TEST_CASE("when fourth Saturday is another day in the middle of the fourth week", "[669fedcd-912e-48c7-a0a1-228b34af91d0]") {
    const meetup::scheduler schedule{boost::gregorian::Feb, 2013};
    REQUIRE(schedule.fourth_saturday() == date{2013, boost::gregorian::Feb, 23});
}

TEST_CASE("when fourth Sunday is some day in the middle of the fourth week", "[648e3849-ea49-44a5-a8a3-9f2a43b3bf1b]") {
    const meetup::scheduler schedule{boost::gregorian::Mar, 2013};
    REQUIRE(schedule.fourth_sunday() == date{2013, boost::gregorian::Mar, 24});
}

TEST_CASE("when fourth Sunday is the 28th, the last day of the fourth week", "[f81321b3-99ab-4db6-9267-69c5da5a7823]") {
    const meetup::scheduler schedule{boost::gregorian::Apr, 2013};
    REQUIRE(schedule.fourth_sunday() == date{2013, boost::gregorian::Apr, 28});
}

TEST_CASE("last Monday in a month with four Mondays", "[1af5e51f-5488-4548-aee8-11d7d4a730dc]") {
    const meetup::scheduler schedule{boost::gregorian::Mar, 2013};
    REQUIRE(schedule.last_monday() == date{2013, boost::gregorian::Mar, 25});
}

TEST_CASE("last Monday in a month with five Mondays", "[f29999f2-235e-4ec7-9dab-26f137146526]") {
    const meetup::scheduler schedule{boost::gregorian::Apr, 2013};
    REQUIRE(schedule.last_monday() == date{2013, boost::gregorian::Apr, 29});
}

TEST_CASE("last Tuesday in a month with four Tuesdays", "[31b097a0-508e-48ac-bf8a-f63cdcf6dc41]") {
    const meetup::scheduler schedule{boost::gregorian::May, 2013};
    REQUIRE(schedule.last_tuesday() == date{2013, boost::gregorian::May, 28});
}

TEST_CASE("last Tuesday in another month with four Tuesdays", "[8c022150-0bb5-4a1f-80f9-88b2e2abcba4]") {
    const meetup::scheduler schedule{boost::gregorian::Jun, 2013};
    REQUIRE(schedule.last_tuesday() == date{2013, boost::gregorian::Jun, 25});
}

TEST_CASE("last Wednesday in a month with five Wednesdays", "[0e762194-672a-4bdf-8a37-1e59fdacef12]") {
    const meetup::scheduler schedule{boost::gregorian::Jul, 2013};
    REQUIRE(schedule.last_wednesday() == date{2013, boost::gregorian::Jul, 31});
}

TEST_CASE("last Wednesday in a month with four Wednesdays", "[5016386a-f24e-4bd7-b439-95358f491b66]") {
    const meetup::scheduler schedule{boost::gregorian::Aug, 2013};
    REQUIRE(schedule.last_wednesday() == date{2013, boost::gregorian::Aug, 28});
}

TEST_CASE("last Thursday in a month with four Thursdays", "[12ead1a5-cdf9-4192-9a56-2229e93dd149]") {
    const meetup::scheduler schedule{boost::gregorian::Sep, 2013};
    REQUIRE(schedule.last_thursday() == date{2013, boost::gregorian::Sep, 26});
}

TEST_CASE("last Thursday in a month with five Thursdays", "[7db89e11-7fbe-4e57-ae3c-0f327fbd7cc7]") {
    const meetup::scheduler schedule{boost::gregorian::Oct, 2013};
    REQUIRE(schedule.last_thursday() == date{2013, boost::gregorian::Oct, 31});
}

TEST_CASE("last Friday in a month with five Fridays", "[e47a739e-b979-460d-9c8a-75c35ca2290b]") {
    const meetup::scheduler schedule{boost::gregorian::Nov, 2013};
    REQUIRE(schedule.last_friday() == date{2013, boost::gregorian::Nov, 29});
}

TEST_CASE("last Friday in a month with four Fridays", "[5bed5aa9-a57a-4e5d-8997-2cc796a5b0ec]") {
    const meetup::scheduler schedule{boost::gregorian::Dec, 2013};
    REQUIRE(schedule.last_friday() == date{2013, boost::gregorian::Dec, 27});
}

TEST_CASE("last Saturday in a month with four Saturdays", "[61e54cba-76f3-4772-a2b1-bf443fda2137]") {
    const meetup::scheduler schedule{boost::gregorian::Jan, 2013};
    REQUIRE(schedule.last_saturday() == date{2013, boost::gregorian::Jan, 26});
}

TEST_CASE("last Saturday in another month with four Saturdays", "[8b6a737b-2fa9-444c-b1a2-80ce7a2ec72f]") {
    const meetup::scheduler schedule{boost::gregorian::Feb, 2013};
    REQUIRE(schedule.last_saturday() == date{2013, boost::gregorian::Feb, 23});
}

TEST_CASE("last Sunday in a month with five Sundays", "[0b63e682-f429-4d19-9809-4a45bd0242dc]") {
    const meetup::scheduler schedule{boost::gregorian::Mar, 2013};
    REQUIRE(schedule.last_sunday() == date{2013, boost::gregorian::Mar, 31});
}

TEST_CASE("last Sunday in a month with four Sundays", "[5232307e-d3e3-4afc-8ba6-4084ad987c00]") {
    const meetup::scheduler schedule{boost::gregorian::Apr, 2013};
    REQUIRE(schedule.last_sunday() == date{2013, boost::gregorian::Apr, 28});
}

#endif
